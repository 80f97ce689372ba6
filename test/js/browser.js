// test/js/browser.js - load a page in Debian's headless chromium (through
// playwright-core) for test/export.t and print what it saw as one JSON line.
//
// Usage: node browser.js speedscope URL       the speedscope app at URL (its
//                                             #profileURL= names the file);
//                                             waits for the title to change
//        node browser.js svg URL SHOT.png     vprof's flame graph: clicks the
//                                             widest frame under the root,
//                                             searches, takes a screenshot
// Output: {"title":..., "errors":[...], ...}; exit 0 unless the browser
// could not be started.
'use strict';

const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function speedscope(page, url, out) {
	await page.goto(url);
	try {
		await page.waitForFunction(() => document.title.endsWith(' - speedscope') &&
					   document.title !== 'speedscope', null, { timeout: 20000 });
	} catch (e) {
		out.timeout = true;
	}
	out.title = await page.title();
}

async function svg(page, url, shot, out) {
	await page.goto(url);
	out.title = await page.title();
	out.frames = await page.locator('g.f').count();
	// The widest frame below the root: its width before and after a click.
	const target = page.locator('g.f[data-depth="1"]').first();
	out.name = await target.getAttribute('data-name');
	const rect = target.locator('rect');
	out.before = Number(await rect.getAttribute('width'));
	await rect.click();
	out.after = Number(await rect.getAttribute('width'));
	out.full = Number(await page.locator('g.f[data-depth="0"] rect').first().getAttribute('width'));
	await page.evaluate((n) => window.vprofSearch(n), out.name);
	out.matched = await page.locator('#matched').textContent();
	await page.screenshot({ path: shot });
}

async function main() {
	const [mode, url, shot] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS,
						headless: true });
	const page = await browser.newPage();
	const out = { errors: [] };
	page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	try {
		if (mode === 'speedscope')
			await speedscope(page, url, out);
		else
			await svg(page, url, shot, out);
	} catch (e) {
		out.errors.push('browser.js: ' + String(e));
	}
	await browser.close();
	console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
