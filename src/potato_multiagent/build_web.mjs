/*
 * build_web.mjs: builds the parts of the page's bundle from the ES modules (bundling.py runs it:
 * `node build_web.mjs` with the job as JSON on stdin, the parts as JSON on stdout).
 *
 * job: {parts: [{name, entry, styles: [path, ...]}], core: "core"}; paths absolute.
 * answer: {name: {script, style}} for every part, each minified by esbuild.
 *
 * Each part is one IIFE that esbuild bundles from its entry with everything the entry imports. The
 * core part (web/page.js) holds the runtime and makes it the page's one global; every other part
 * (the trace view, a type, a type's part of the trace view) reads the runtime from that global:
 * its imports of 'potato-multiagent' or of web/widget.js resolve to `globalThis.PotatoMultiagent`.
 * So a page can join any subset of the parts after the core and still run one runtime, and a part
 * that would carry a second copy of one of the core's modules is refused, naming the import.
 *
 * esbuild is found next to this file (a source checkout's node_modules), in a folder NODE_PATH names,
 * or in the current folder's node_modules.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const RUNTIME = 'potato-multiagent';

function findEsbuild() {
  // next to this file, or in a folder NODE_PATH names (bundling.py names the checkout's), or here
  for (const base of [import.meta.url, pathToFileURL(path.join(process.cwd(), 'x')).href]) {
    try { return createRequire(base)('esbuild'); } catch (error) { /* try the next place */ }
  }
  throw new Error('esbuild is not installed: run `npm ci` in the checkout (package.json pins it), ' +
    'or name the node_modules folder that holds it in NODE_PATH');
}

/** The names web/widget.js exports (the runtime's API), as esbuild reads them. */
async function exportsOf(esbuild, file) {
  const built = await esbuild.build({ entryPoints: [file], bundle: true, write: false, format: 'esm',
    metafile: true, logLevel: 'silent' });
  return Object.values(built.metafile.outputs)[0].exports;
}

/** Imports of the runtime, in a part other than the core's, read the page's global: a module that
 * takes each of the runtime's exports from it by name (as an ES module, so a part refers to them
 * directly; a CommonJS stand-in made every part copy the whole namespace as it started). */
function runtimeFromThePage(widget, names) {
  return {
    name: 'runtime-from-the-page',
    setup(build) {
      build.onResolve({ filter: /^potato-multiagent$/ }, () => ({ path: RUNTIME, namespace: 'page' }));
      build.onResolve({ filter: /widget\.js$/ }, (args) => (
        path.resolve(args.resolveDir, args.path) === widget ? { path: RUNTIME, namespace: 'page' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'page' }, () => ({
        contents: `export const { ${names.join(', ')} } = globalThis.PotatoMultiagent;`, loader: 'js' }));
    }
  };
}

const OPTIONS = { bundle: true, write: false, format: 'iife', target: 'es2019', minify: true,
  legalComments: 'none', metafile: true, logLevel: 'silent' };

async function buildPart(esbuild, part, widget, coreInputs, names) {
  const plugins = coreInputs ? [runtimeFromThePage(widget, names)] : [];
  const built = await esbuild.build({ ...OPTIONS, entryPoints: [part.entry], plugins });
  const inputs = Object.keys(built.metafile.inputs).map((input) => path.resolve(input));
  if (coreInputs) {
    const copied = inputs.filter((input) => coreInputs.has(input));
    if (copied.length) {
      throw new Error(`part "${part.name}" would hold a second copy of the core's ${copied.map((c) => path.basename(c)).join(', ')}: ` +
        `import what the runtime offers from '${RUNTIME}'`);
    }
  }
  let style = '';
  for (const sheet of part.styles) {
    const css = await esbuild.transform(readFileSync(sheet, 'utf8'), { loader: 'css', minify: true, sourcefile: sheet });
    style += css.code;
  }
  return { script: built.outputFiles[0].text, style, inputs };
}

async function main() {
  const job = JSON.parse(readFileSync(0, 'utf8'));
  const esbuild = findEsbuild();
  const core = job.parts.find((part) => part.name === job.core);
  const widget = path.resolve(path.dirname(core.entry), 'widget.js');
  const coreBuilt = await buildPart(esbuild, core, widget, null);
  const coreInputs = new Set(coreBuilt.inputs);
  const names = await exportsOf(esbuild, widget);
  const answer = { [core.name]: { script: coreBuilt.script, style: coreBuilt.style } };
  for (const part of job.parts) {
    if (part === core) { continue; }
    const built = await buildPart(esbuild, part, widget, coreInputs, names);
    answer[part.name] = { script: built.script, style: built.style };
  }
  process.stdout.write(JSON.stringify(answer));
}

main().catch((error) => {
  const said = error && error.errors && error.errors.length
    ? error.errors.map((e) => (e.location ? `${e.location.file}:${e.location.line}: ` : '') + e.text).join('\n')
    : String(error && error.message || error);
  process.stderr.write(`build_web.mjs: ${said}\n`);
  process.exit(1);
});
