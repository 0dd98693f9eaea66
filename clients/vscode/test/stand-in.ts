// A stand-in for the `vscode` module, which only the editor provides: every property, call and `new`
// yields another stand-in. `note` hears each use (the server-session driver records them).

/** A stand-in named `name`; `note` is told of every use of it and of what it yields. */
export function standIn(name: string, note: (what: string) => void = () => undefined): any {
  const target = function () {} as any;
  return new Proxy(target, {
    get(t, prop) {
      if (prop === 'prototype') {
        return t.prototype;
      }
      if (prop === 'then' || prop === Symbol.toPrimitive || prop === Symbol.iterator) {
        return undefined;
      }
      note(`${name}.${String(prop)}`);
      return standIn(`${name}.${String(prop)}`, note);
    },
    apply: () => (note(`${name}()`), standIn(`${name}()`, note)),
    construct: () => (note(`new ${name}`), standIn(`new ${name}`, note)),
  });
}
