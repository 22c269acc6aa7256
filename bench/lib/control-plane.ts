// The control plane as the HTTP benches drive it while setting up: JSON in, JSON out, any status
// of 300 or more thrown with its body.

export type ControlPlaneCall = (method: string, path: string, body?: unknown) => Promise<any>;

export function controlPlane(origin: string, key: string): ControlPlaneCall {
  return async (method, path, body) => {
    const r = await fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload: unknown = await r.json();
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(payload)}`);
    return payload;
  };
}
