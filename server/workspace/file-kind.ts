// Moved to server/content/ (issue 35): what a file is is decided there. Kept only so the preview and the search
// index, converted by another change, build until they import server/content/index.ts; remove then.
export { decodeFileText, decodeText, imageMime, isPdf, isSvg, looksLikeText, SNIFF_BYTES, textOf, type DecodedText } from '../content/index.js';
