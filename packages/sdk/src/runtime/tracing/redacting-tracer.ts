// The trace side of the redaction boundary: every string attribute, event attribute, status message,
// exception and span name the runtime records passes through the host's SecretRedactor (docs/secrets.md).
import type { Attributes, AttributeValue, Context, Exception, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import type { SecretRedactor } from '../../core/secret-redactor';

function attribute(value: AttributeValue | undefined, redactor: SecretRedactor): AttributeValue | undefined {
  if (typeof value === 'string') return redactor.text(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactor.text(v) : v)) as AttributeValue;
  return value;
}

function attributes(attrs: Attributes | undefined, redactor: SecretRedactor): Attributes | undefined {
  if (attrs === undefined) return undefined;
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = attribute(v, redactor);
  return out;
}

function redactingSpan(span: Span, redactor: SecretRedactor): Span {
  const methods: Partial<Record<keyof Span, unknown>> = {
    setAttribute(key: string, value: AttributeValue) {
      span.setAttribute(key, attribute(value, redactor)!);
      return proxy;
    },
    setAttributes(attrs: Attributes) {
      span.setAttributes(attributes(attrs, redactor)!);
      return proxy;
    },
    addEvent(name: string, attrsOrTime?: unknown, time?: unknown) {
      const plain =
        typeof attrsOrTime === 'object' &&
        attrsOrTime !== null &&
        !Array.isArray(attrsOrTime) &&
        !(attrsOrTime instanceof Date);
      const attrs = plain ? attributes(attrsOrTime as Attributes, redactor) : attrsOrTime;
      (span.addEvent as (...a: unknown[]) => Span)(redactor.text(name), attrs, time);
      return proxy;
    },
    setStatus(status: Parameters<Span['setStatus']>[0]) {
      span.setStatus(status.message === undefined ? status : { ...status, message: redactor.text(status.message) });
      return proxy;
    },
    updateName(name: string) {
      span.updateName(redactor.text(name));
      return proxy;
    },
    recordException(exception: Exception, time?: Parameters<Span['recordException']>[1]) {
      // Recorded without its stack: a stack repeats the message and may hold more.
      const redacted: Exception =
        typeof exception === 'string'
          ? redactor.text(exception)
          : ({
              name: exception.name,
              code: exception.code,
              ...(exception.message !== undefined ? { message: redactor.text(exception.message) } : {}),
            } as Exception);
      span.recordException(redacted, time);
    },
  };
  const proxy: Span = new Proxy(span, {
    get(target, prop) {
      if (typeof prop === 'string' && Object.hasOwn(methods, prop)) return methods[prop as keyof Span];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return proxy;
}

/**
 * A tracer whose spans redact what is recorded on them: string attributes (also in arrays and events),
 * span and event names, status messages and exception messages (exceptions are recorded without their stack).
 * Span names and start attributes are redacted always; a span that is not recording when started is handed
 * out as it is (it records nothing).
 * @param tracer - the host's tracer (or the global provider's)
 * @param redactor - the host's redaction step
 * @returns the redacting tracer
 * @internal
 */
export function redactingTracer(tracer: Tracer, redactor: SecretRedactor): Tracer {
  const startSpan = (name: string, options?: SpanOptions, context?: Context): Span => {
    const span = tracer.startSpan(
      redactor.text(name),
      options && { ...options, attributes: attributes(options.attributes, redactor) },
      context,
    );
    // A span that records nothing (no tracer provider registered, or sampled out) ignores what is set on it:
    // there is nothing to redact, and the runtime's calls on it go straight to it.
    return span.isRecording() ? redactingSpan(span, redactor) : span;
  };
  return {
    startSpan,
    startActiveSpan: ((name: string, ...rest: unknown[]) => {
      const fn = rest.pop() as (span: Span) => unknown;
      return (tracer.startActiveSpan as (...a: unknown[]) => unknown)(redactor.text(name), ...rest, (span: Span) =>
        fn(redactingSpan(span, redactor)),
      );
    }) as Tracer['startActiveSpan'],
  };
}
