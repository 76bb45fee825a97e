/** Icons as inline SVG: emoji render as empty boxes where no emoji font is installed. */
export const PaperclipIcon = ({ label = 'has attachments' }: { label?: string }) => (
  <svg class="icon" role="img" aria-label={label} viewBox="0 0 24 24" width="14" height="14" fill="none" stroke="currentColor" stroke-width="2">
    <path d="M21 12.5l-8.5 8.5a5 5 0 0 1-7-7L14 5.5a3.3 3.3 0 0 1 4.7 4.7L10.2 18.7a1.7 1.7 0 0 1-2.4-2.4L15.5 8.6" />
  </svg>
);
