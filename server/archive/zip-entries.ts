// yauzl announces entries as events after each `readEntry()`; this turns one announcement into a promise, so
// both zip readers (extraction here, Office previews in office/guarded-zip.ts) pull members one at a time.
import type { Entry, ZipFile } from 'yauzl';

/** The next entry of `zip`, or null at its end; rejects with the error yauzl emits instead. */
export function nextZipEntry(zip: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: Entry) => {
      settle();
      resolve(entry);
    };
    const onEnd = () => {
      settle();
      resolve(null);
    };
    const onError = (err: Error) => {
      settle();
      reject(err);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}
