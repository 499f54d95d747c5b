// Regenerates build/icon.png (1024×1024, what electron-builder turns into .icns/.ico/Linux icons) from the
// web UI's renderer/icon.svg, rendered by Debian's Chromium. Run by hand after changing the SVG:
//   node build/make-icon.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright';

const SIZE = 1024;
const svg = readFileSync(new URL('../renderer/icon.svg', import.meta.url), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.SATCHEL_E2E_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  await page.setContent(
    `<html><body style="margin:0;background:transparent">` +
      `<img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="${SIZE}" height="${SIZE}"></body></html>`,
  );
  await page.locator('img').screenshot({ path: new URL('./icon.png', import.meta.url).pathname, omitBackground: true });
} finally {
  await browser.close();
}
