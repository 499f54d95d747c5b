// PLACEHOLDER: replaced by the redaction module (credential redaction of section 4.0).
export function redact(text: string): string {
  return text;
}
export function redactDeep<T>(value: T): T {
  return value;
}
