const utf8 = new TextEncoder();

/** The size of a value as JSON in UTF-8, as the API's size limits count it (TextEncoder: browsers have it too). */
export const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value ?? {})).byteLength;
