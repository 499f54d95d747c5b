/** The config metadata key naming the folder the screenshots spec writes into (e2e/screenshots.config.ts). */
export const SCREENSHOT_DIR_KEY = 'satchelScreenshotDir';
