// tools/svg2png.js - render an SVG (vprof's flame graph) to a PNG in
// Debian's headless chromium, through the playwright-core that
// tools/setup.sh installs into test/js/node_modules.
//
// Usage: node tools/svg2png.js IN.svg OUT.png [SEARCH]
//   The page is the SVG's own size (its width and height attributes);
//   SEARCH, if given, is typed into the flame graph's search box first
//   (matches in magenta). Exit 0; 1 with a message when the browser
//   fails or the page logs an error; 2 for bad usage.
'use strict';

const fs = require('fs');
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'test', 'js', 'node_modules',
				       'playwright-core'));

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
	       '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function size(svg) {
	const head = svg.slice(0, 2000);
	const w = /<svg[^>]*\swidth="(\d+)"/.exec(head), h = /<svg[^>]*\sheight="(\d+)"/.exec(head);
	return w && h ? { width: Number(w[1]), height: Number(h[1]) } : null;
}

async function render(input, output, search) {
	const viewport = size(fs.readFileSync(input, 'utf8'));
	if (!viewport)
		throw new Error(input + ': no <svg width=.. height=..>');
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS,
						headless: true });
	const errors = [];
	try {
		const page = await browser.newPage({ viewport });
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		page.on('pageerror', (e) => errors.push(String(e)));
		await page.goto('file://' + path.resolve(input));
		if (search)
			await page.locator('#search').fill(search);
		await page.screenshot({ path: output });
	} finally {
		await browser.close();
	}
	if (errors.length)
		throw new Error(input + ': ' + errors.join('; '));
}

const args = process.argv.slice(2);
if (args[0] === '-h' || args.length < 2 || args.length > 3) {
	(args[0] === '-h' ? console.log : console.error)(
		'Usage: node tools/svg2png.js IN.svg OUT.png [SEARCH]');
	process.exit(args[0] === '-h' ? 0 : 2);
}
render(args[0], args[1], args[2]).catch((e) => {
	console.error('svg2png: ' + (e && e.message ? e.message : String(e)));
	process.exit(1);
});
