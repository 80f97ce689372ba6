// test/js/browser.js - load a page in Debian's headless chromium (through
// playwright-core) for test/export.t and test/trace-export.t and print what
// it saw as one JSON line.
//
// Usage: node browser.js speedscope URL [SHOT.png [PROFILE]]
//                                             the speedscope app at URL (its
//                                             #profileURL= names the file);
//                                             waits for the title to change
//                                             (SHOT: then a 1200x600
//                                             screenshot, of the first
//                                             profile whose name holds
//                                             PROFILE, if given)
//        node browser.js svg URL SHOT.png TERM
//                                             vprof's flame graph: clicks the
//                                             widest frame under the root,
//                                             types TERM in the search box,
//                                             takes a screenshot
// Output: {"title":..., "errors":[...], ...}; for speedscope also
// "profiles": how many profiles the app imported (its toolbar's "(I/N)",
// else 1); for svg also "fills": each frame's name -> the fill chromium
// paints at the middle of its rectangle (computed style of the element hit
// there; frames of 2 px or more).
// Exit 0 unless the browser could not be started.
'use strict';

const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/* The speedscope toolbar's text: the profile shown, "NAME (I/N)". */
async function toolbar(page) {
	return page.evaluate(() => {
		const m = document.body.innerText.match(/[^\n]*\(\d+\/\d+\)/);
		return m ? m[0] : '';
	});
}

async function speedscope(page, url, shot, pick, out) {
	if (shot)
		await page.setViewportSize({ width: 1200, height: 600 });
	await page.goto(url);
	try {
		await page.waitForFunction(() => document.title.endsWith(' - speedscope') &&
					   document.title !== 'speedscope', null, { timeout: 20000 });
	} catch (e) {
		out.timeout = true;
	}
	out.title = await page.title();
	// More than one profile: the toolbar says "NAME (I/N)"; one: just its name.
	out.profiles = await page.evaluate(() => {
		const m = document.body.innerText.match(/\((\d+)\/(\d+)\)/);
		return m ? Number(m[2]) : 1;
	});
	if (shot) {
		for (let i = 0; pick && i < 40 && !(await toolbar(page)).includes(pick); i++) {
			await page.keyboard.press('n');       /* speedscope: the next profile */
			await page.waitForTimeout(100);
		}
		out.shown = await toolbar(page);
		await page.waitForTimeout(1000);
		await page.screenshot({ path: shot });
	}
}

async function svg(page, url, shot, term, out) {
	await page.goto(url);
	out.title = await page.title();
	out.frames = await page.locator('g.f').count();
	out.fills = await page.evaluate(() => {
		const fills = {};
		document.querySelectorAll('g.f').forEach((g) => {
			const rect = g.querySelector('rect'), b = rect.getBoundingClientRect();
			if (b.width < 2)
				return;
			const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
			if (hit && hit.closest('g.f') === g)
				fills[g.getAttribute('data-name')] = getComputedStyle(hit).fill;
		});
		return fills;
	});
	// The widest frame below the root: its width before and after a click.
	const widest = await page.evaluate(() => {
		let best = -1, at = -1;
		document.querySelectorAll('g.f').forEach((g, i) => {
			const n = Number(g.getAttribute('data-n'));
			if (g.getAttribute('data-depth') === '2' && n > best) {
				best = n;
				at = i;
			}
		});
		return at;
	});
	const target = page.locator('g.f').nth(widest);
	out.name = await target.getAttribute('data-name');
	const rect = target.locator('rect');
	out.before = Number(await rect.getAttribute('width'));
	await rect.hover();
	out.details = await page.locator('#details').textContent();
	await rect.click();
	out.after = Number(await rect.getAttribute('width'));
	out.root = Number(await page.locator('g.f').first().locator('rect').getAttribute('width'));
	out.hidden = await page.evaluate(() => Array.prototype.filter.call(
		document.querySelectorAll('g.f'), (g) => g.style.display === 'none').length);
	await page.locator('#search').fill(term);
	out.matched = await page.locator('#matched').textContent();
	out.highlighted = await page.evaluate(() => document.querySelectorAll(
		'g.f rect[fill="rgb(230,0,230)"]').length);
	await page.locator('#reset').click();
	out.reset = Number(await rect.getAttribute('width'));
	await page.screenshot({ path: shot });
}

async function main() {
	const [mode, url, shot, term] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS,
						headless: true });
	const page = await browser.newPage();
	const out = { errors: [] };
	page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	try {
		if (mode === 'speedscope')
			await speedscope(page, url, shot, term, out);
		else
			await svg(page, url, shot, term, out);
	} catch (e) {
		out.errors.push('browser.js: ' + String(e));
	}
	await browser.close();
	console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
