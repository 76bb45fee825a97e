import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Rows drawn beyond the visible ones on each side, so fast scrolling shows no blank band. */
const OVERSCAN = 8;

interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  keyOf: (item: T) => string;
  renderRow: (item: T, index: number) => ComponentChildren;
  /** Called when the last rows come into view (infinite scroll). */
  onEndReached?: () => void;
  /** Kept in view (keyboard navigation). */
  activeIndex?: number;
  label: string;
}

/**
 * A fixed-row-height virtualised list: only the rows in view (plus a few) are in the DOM, so ten
 * thousand emails cost what thirty do.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, activeIndex } = props;
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const element = viewport.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    setHeight(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = viewport.current;
    if (element === null || activeIndex === undefined || activeIndex < 0) return;
    const top = activeIndex * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
  }, [activeIndex, rowHeight]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (last >= items.length - OVERSCAN) props.onEndReached?.();
  }, [last, items.length]);

  return (
    <div class="virtual-viewport" ref={viewport} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)} role="list" aria-label={props.label}>
      <div style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
        {items.slice(first, last).map((item, offset) => (
          <div role="listitem" key={props.keyOf(item)} class="virtual-row" style={{ transform: `translateY(${(first + offset) * rowHeight}px)`, height: `${rowHeight}px` }}>
            {props.renderRow(item, first + offset)}
          </div>
        ))}
      </div>
    </div>
  );
}
