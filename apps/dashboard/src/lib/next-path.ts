/**
 * Where to go after signing in: the page the user was sent away from, if it is one of ours. Compared
 * by origin as the browser will resolve it, not by how it starts: `/\evil.example` and a path with a
 * tab (`/%09/evil.example`) are other sites to a URL parser, though they start with one slash.
 */
export function nextPath(params: URLSearchParams, origin: string = window.location.origin): string {
  const next = params.get('next');
  if (!next) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : '/';
}
