// Ajv (draft 2020-12) as the reference validator for guard tests: same formats as the guard,
// Unicode patterns, and the decimal multipleOf tolerance documented in runtime/guard/json.ts.
import Ajv2020 from 'ajv/dist/2020';
import { isDate, isEmail, isHostname, isIpv4, isIpv6, isTime } from '../../../runtime/guard/formats.ts';
import { FormatRegistry } from '@sinclair/typebox';

export function createOracle() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9, unicodeRegExp: true });
  const own: Record<string, (v: string) => boolean> = { date: isDate, time: isTime, email: isEmail, hostname: isHostname, ipv4: isIpv4, ipv6: isIpv6 };
  for (const name of ['date-time', 'uuid', 'uri']) own[name] = FormatRegistry.Get(name)!;
  for (const [name, validate] of Object.entries(own)) ajv.addFormat(name, { type: 'string', validate });
  return (schema: unknown) => {
    const validate = ajv.compile(schema as object);
    return (value: unknown) => validate(value) as boolean;
  };
}
