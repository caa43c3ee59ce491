// Runs the Khronos glTF-Validator (npm gltf-validator) over many files in one process and prints
// one JSON line per file: {"file", "errors", "warnings", "infos", "codes": {code: count}}.
// Usage: NODE_PATH=<prefix>/node_modules node validate_gltf.js file.glb...
// Exit: 0 when every file has no errors, 1 otherwise, 2 when the validator cannot run.
'use strict';
const fs = require('fs');
const path = require('path');
let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.error('gltf-validator not found: ' + e.message);
  process.exit(2);
}

async function one(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: file,
    maxIssues: 0,
    externalResourceFunction: (uri) => Promise.resolve(
        new Uint8Array(fs.readFileSync(path.resolve(path.dirname(file), decodeURIComponent(uri))))),
  });
  const codes = {};
  for (const m of report.issues.messages) {
    const key = ['error', 'warning', 'info', 'hint'][m.severity] + ':' + m.code;
    codes[key] = (codes[key] || 0) + 1;
  }
  return {
    file,
    errors: report.issues.numErrors,
    warnings: report.issues.numWarnings,
    infos: report.issues.numInfos,
    codes,
  };
}

(async () => {
  let failed = false;
  for (const f of process.argv.slice(2)) {
    try {
      const r = await one(f);
      failed = failed || r.errors > 0;
      console.log(JSON.stringify(r));
    } catch (e) {
      failed = true;
      console.log(JSON.stringify({file: f, errors: -1, message: String(e)}));
    }
  }
  process.exit(failed ? 1 : 0);
})();
