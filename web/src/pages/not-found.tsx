import { Link } from '../components/ui.js';

/** An unknown dashboard path says so, rather than showing another page as if it were this one. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <section class="not-found">
      <h1>Page not found</h1>
      <p class="muted">
        There is no page at <code>{path}</code>.
      </p>
      <p>
        <Link href="/emails" class="button">
          Go to Emails
        </Link>
      </p>
    </section>
  );
}
