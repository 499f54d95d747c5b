// Work done for an element only when it first comes near the screen (highlighting a code block, typesetting a
// formula): a long conversation loads nothing and colours nothing it does not show. One observer for all.

/** How far outside the viewport an element counts as on screen: it is ready before it scrolls into view. */
export const ON_SCREEN_MARGIN = '300px';

const pending = new WeakMap<Element, () => void>();
let observer: IntersectionObserver | null = null;

export function whenOnScreen(el: Element, run: () => void): void {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        const fn = pending.get(entry.target);
        pending.delete(entry.target);
        observer?.unobserve(entry.target);
        fn?.();
      }
    },
    { rootMargin: ON_SCREEN_MARGIN },
  );
  pending.set(el, run);
  observer.observe(el);
}
