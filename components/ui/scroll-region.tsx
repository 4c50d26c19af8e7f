"use client";
// A table wider than its card scrolls inside it, and says so: a fade on the side with more
// columns and a line under it, shown only while something is out of view. Focusable and named, so
// a keyboard user can scroll it too (axe scrollable-region-focusable).
import { useEffect, useRef, useState } from "react";

export function ScrollRegion({
  label,
  className,
  children,
}: {
  label: string;
  className: string;
  children: React.ReactNode;
}) {
  const region = useRef<HTMLDivElement>(null);
  const [hidden, setHidden] = useState({ left: false, right: false });
  useEffect(() => {
    const element = region.current;
    if (!element) return;
    const update = () => {
      const max = element.scrollWidth - element.clientWidth;
      const left = max > 1 && element.scrollLeft > 1;
      const right = max > 1 && element.scrollLeft < max - 1;
      setHidden((current) => (current.left === left && current.right === right ? current : { left, right }));
    };
    // Fires once at once, then on every size change of the region or of its table.
    const observer = new ResizeObserver(update);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    element.addEventListener("scroll", update, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener("scroll", update);
    };
  }, []);
  return (
    <div className="relative -mx-4 sm:mx-0">
      <div ref={region} className={className} tabIndex={0} role="region" aria-label={label}>
        {children}
      </div>
      {hidden.left ? (
        <div aria-hidden className="pointer-events-none absolute inset-y-0 left-0 w-6 bg-linear-to-r from-white" />
      ) : null}
      {hidden.right ? (
        <div aria-hidden className="pointer-events-none absolute inset-y-0 right-0 w-10 bg-linear-to-l from-white" />
      ) : null}
      {hidden.left || hidden.right ? (
        <p className="px-4 pt-1 text-xs text-slate-500 sm:px-0" data-testid="scroll-hint">
          {hidden.right ? "More columns to the right: scroll sideways →" : "← More columns to the left"}
        </p>
      ) : null}
    </div>
  );
}
