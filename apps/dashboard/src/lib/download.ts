/** Hands the browser a file to save, made here (no request): an export built from API answers. */
export function saveFile(name: string, content: string, type: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A name safe for a file, from a project's or a template's name. */
export const fileSlug = (name: string) => name.replace(/[^\w-]+/g, '-').toLowerCase();
