// Stylesheets loaded on first use (KaTeX's, the code colours): a <link> from the page's own server, which its
// policy allows (style-src 'self'), added once; the promise settles when it has loaded, so what it styles is
// not drawn unstyled first.
const sheets = new Map<string, Promise<void>>();

export function loadStylesheet(href: string): Promise<void> {
  let loaded = sheets.get(href);
  if (!loaded) {
    loaded = new Promise<void>((resolve, reject) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.addEventListener('load', () => resolve());
      link.addEventListener('error', () => reject(new Error(`stylesheet ${href} did not load`)));
      document.head.appendChild(link);
    });
    sheets.set(href, loaded);
  }
  return loaded;
}
