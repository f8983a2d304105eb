// SPDX-License-Identifier: Apache-2.0
// Offline check of Kubernetes manifests against the official schemas:
// every YAML document is validated by the model of its apiVersion and
// kind from npm kubernetes-models (built-in kinds) or
// @kubernetes-models/* (the CRDs echelon's manifests use: the Prometheus
// Operator's). As the API server with fieldValidation=Strict, a field
// the schema does not know is an error too: the validators read exactly
// the fields they know, so a field never read by them is unknown.
// usage: node deploy-schemas.mjs NODE_DIR FILE...   (NODE_DIR: where
// scripts/setup-clients.sh installed the packages, its node_modules)
// Prints one line per object, errors as file:line:col: Kind/name: path:
// message; exits 1 on any error, 2 when the packages are missing.
import { createRequire } from "node:module";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [nodeDir, ...files] = process.argv.slice(2);
if (!nodeDir || files.length === 0) {
  console.error("usage: node deploy-schemas.mjs NODE_DIR FILE...");
  process.exit(2);
}
const modules = resolve(nodeDir, "node_modules");
const packages = [join(modules, "kubernetes-models")];
const scoped = join(modules, "@kubernetes-models");
if (existsSync(scoped)) {
  for (const name of readdirSync(scoped).sort())
    packages.push(join(scoped, name));
}
if (!existsSync(packages[0])) {
  console.error(`deploy-schemas: no kubernetes-models in ${modules}`);
  process.exit(2);
}
const YAML = createRequire(join(modules, "x.js"))("yaml");

// The model class of apiVersion/kind, or null: the first package with a
// folder for the group version that exports the kind.
const loaded = new Map();
async function model(apiVersion, kind) {
  for (const pkg of packages) {
    const index = join(pkg, apiVersion, "index.js");
    if (!existsSync(index)) continue;
    if (!loaded.has(index))
      loaded.set(index, await import(pathToFileURL(index).href));
    const cls = loaded.get(index)[kind];
    if (typeof cls === "function" && cls.kind === kind) return cls;
  }
  return null;
}

// A copy of v whose plain objects record the keys read (and whether the
// keys were listed, as a map's validator does) in seen.
function watched(v, seen, path) {
  if (Array.isArray(v)) return v.map((x, i) => watched(x, seen, [...path, i]));
  if (v === null || typeof v !== "object") return v;
  const rec = { path, keys: Object.keys(v), read: new Set(), listed: false };
  seen.push(rec);
  const copy = {};
  for (const k of rec.keys) copy[k] = watched(v[k], seen, [...path, k]);
  return new Proxy(copy, {
    get(t, p, r) {
      if (typeof p === "string") rec.read.add(p);
      return Reflect.get(t, p, r);
    },
    has(t, p) {
      if (typeof p === "string") rec.read.add(p);
      return Reflect.has(t, p);
    },
    ownKeys(t) {
      rec.listed = true;
      return Reflect.ownKeys(t);
    },
  });
}

// "file:line:col" of the node at path in doc (its key when key is true).
function where(file, doc, lines, path, key) {
  let node = doc.contents;
  let at = node && node.range ? node.range[0] : 0;
  for (const step of path) {
    if (YAML.isMap(node)) {
      const pair = node.items.find((p) => p.key && p.key.value === step);
      if (!pair) break;
      at = key && pair.key.range ? pair.key.range[0] : at;
      node = pair.value;
      if (node && node.range && !key) at = node.range[0];
    } else if (YAML.isSeq(node)) {
      node = node.items[step];
      if (node && node.range) at = node.range[0];
    } else break;
  }
  const { line, col } = lines.linePos(at);
  return `${file}:${line}:${col}`;
}

const pointer = (p) =>
  p.length ? p.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("").slice(1) : "(object)";

let errors = 0;
let objects = 0;
for (const file of files) {
  const lines = new YAML.LineCounter();
  const docs = YAML.parseAllDocuments(readFileSync(file, "utf8"), {
    lineCounter: lines,
  });
  for (const doc of docs) {
    if (doc.errors.length) {
      for (const e of doc.errors) {
        const { line, col } = lines.linePos(e.pos[0]);
        console.log(`${file}:${line}:${col}: ${e.message}`);
      }
      errors++;
      continue;
    }
    const obj = doc.toJS();
    if (obj === null || obj === undefined) continue; // an empty document
    const name = `${obj.kind}/${obj.metadata && obj.metadata.name}`;
    const here = (path, key) => where(file, doc, lines, path, key);
    if (typeof obj.apiVersion !== "string" || typeof obj.kind !== "string") {
      console.log(`${here([])}: apiVersion and kind are required`);
      errors++;
      continue;
    }
    const cls = await model(obj.apiVersion, obj.kind);
    if (!cls) {
      console.log(`${here([])}: ${name}: no schema for ${obj.apiVersion} ${obj.kind}`);
      errors++;
      continue;
    }
    objects++;
    const seen = [];
    let bad = 0;
    try {
      cls.prototype.validate.call(watched(obj, seen, []));
    } catch (e) {
      for (const x of e.errors || [{ instancePath: "", message: e.message }]) {
        const path = x.instancePath.split("/").slice(1).map((s) =>
          /^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, "/").replace(/~0/g, "~"));
        console.log(`${here(path)}: ${name}: ${pointer(path)}: ${x.message}`);
        bad++;
      }
    }
    const unknown = new Set();
    for (const rec of seen) {
      // under an unknown field, everything is: said once, at its top
      if (rec.listed || rec.path.some((_, i) => unknown.has(pointer(rec.path.slice(0, i + 1)))))
        continue;
      for (const k of rec.keys) {
        if (rec.read.has(k)) continue;
        const path = [...rec.path, k];
        unknown.add(pointer(path));
        console.log(`${here(path, true)}: ${name}: ${pointer(path)}: unknown field`);
        bad++;
      }
    }
    if (!obj.metadata || !obj.metadata.name) {
      console.log(`${here([])}: ${name}: metadata.name: required`);
      bad++;
    }
    errors += bad;
    if (!bad) console.log(`ok: ${file}: ${obj.apiVersion} ${name}`);
  }
}
console.log(`${objects} objects, ${errors} errors`);
process.exit(errors ? 1 : 0);
