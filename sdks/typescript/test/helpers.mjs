// A scripted fetch: each call takes the next answer (a Response factory or an error to throw) and
// records the request it got.
export function scriptedFetch(answers) {
  const calls = [];
  const fetch = async (request) => {
    const body = request.body === null ? "" : await request.text();
    calls.push({ url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body });
    const next = answers.shift();
    if (next === undefined) throw new Error("no scripted answer left");
    if (next instanceof Error) throw next;
    return next();
  };
  return { fetch, calls };
}

export function json(status, body, headers = {}) {
  return () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export function timeout() {
  const err = new Error("The operation was aborted due to timeout");
  err.name = "TimeoutError";
  return err;
}

export function refused() {
  return Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
}

export function recordingSleep() {
  const slept = [];
  return { slept, sleep: async (seconds) => void slept.push(seconds) };
}
