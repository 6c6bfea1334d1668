#!/usr/bin/env node
// validate_frames.js - validates captured protocol frames against
// proto/schema/ (JSON Schema draft 2020-12, with ajv).
//
// Usage: node validate_frames.js SCHEMA_DIR PROTOCOL_MD FRAMES_JSONL [--no-coverage]
//
// FRAMES_JSONL holds one object per line, as tests/service/test_serve.c
// writes them with DDZ_FRAMES_OUT set:
//   {"dir":"in","frame":F}    a frame the server sent: must validate
//   {"dir":"out","frame":F}   a well-formed request a client sent: must validate
//   {"dir":"bad","text":T}    a request malformed on purpose: must NOT validate
//   {"dir":"badin","text":T}  a server frame malformed on purpose: must NOT
//                             validate (tests/proto/test_events_schema.sh)
// It fails when any frame does not validate, a malformed request does, a
// message type of PROTOCOL.md has no schema (or a schema no message type),
// or a message type never occurs in the capture (the capture must cover the
// whole protocol; --no-coverage skips that check, for the self-test of
// test_schema.sh). Prints a summary line "N passed, N failed".
'use strict';

const fs = require('fs');
const path = require('path');
const Ajv2020 = require('ajv/dist/2020');

const [schemaDir, protocolMd, framesFile, flag] = process.argv.slice(2);
const coverage = flag !== '--no-coverage';
if (!framesFile) {
    console.error('usage: validate_frames.js SCHEMA_DIR PROTOCOL_MD FRAMES_JSONL');
    process.exit(2);
}
const BASE = 'https://ddz.invalid/schema/';

let passed = 0;
let failed = 0;
const fail = (msg) => {
    failed++;
    if (failed <= 50) console.log('FAIL: ' + msg);
};
const ok = () => passed++;

// ---- the schemas ----
const ajv = new Ajv2020({ allErrors: true, strict: true });
const schemaFiles = [];
(function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.json')) schemaFiles.push(p);
    }
})(schemaDir);
for (const f of schemaFiles) {
    const s = JSON.parse(fs.readFileSync(f, 'utf8'));
    const want = BASE + path.relative(schemaDir, f).split(path.sep).join('/');
    if (s.$id !== want) fail(`${f}: $id is ${s.$id}, want ${want}`);
    ajv.addSchema(s);
}
const validators = { server: {}, client: {} };
for (const dir of ['server', 'client']) {
    for (const f of fs.readdirSync(path.join(schemaDir, dir))) {
        if (!f.endsWith('.json')) continue;
        const name = f.slice(0, -5);
        try {
            validators[dir][name] = ajv.getSchema(BASE + dir + '/' + f);
        } catch (e) {
            fail(`${dir}/${f} does not compile: ${e.message}`);
        }
    }
}

// ---- the message types PROTOCOL.md lists: rows "| `type` | ..." of its
// "Client → server" and "Server → client" tables ----
const md = fs.readFileSync(protocolMd, 'utf8');
function tableTypes(heading) {
    const start = md.indexOf(heading);
    if (start < 0) {
        fail(`PROTOCOL.md has no "${heading}" section`);
        return [];
    }
    const types = [];
    const lines = md.slice(start).split('\n').slice(1);
    let inTable = false;
    for (const line of lines) {
        if (line.startsWith('|')) {
            inTable = true;
            const m = /^\| `([a-z_]+)` \|/.exec(line);
            if (m) types.push(m[1]);
        } else if (inTable) {
            break;
        }
    }
    return types;
}
const documented = {
    client: tableTypes('### Client → server'),
    server: tableTypes('### Server → client'),
};
for (const dir of ['client', 'server']) {
    if (documented[dir].length === 0) fail(`no ${dir} message types found in PROTOCOL.md`);
    for (const t of documented[dir]) {
        if (validators[dir][t]) ok();
        else fail(`${dir} message "${t}" of PROTOCOL.md has no schema ${dir}/${t}.json`);
    }
    for (const t of Object.keys(validators[dir]))
        if (!documented[dir].includes(t)) fail(`schema ${dir}/${t}.json names no message of PROTOCOL.md`);
}

// ---- the frames ----
const seen = { server: new Set(), client: new Set() };
const errors = (v) => ajv.errorsText(v.errors, { separator: '; ' });
const short = (x) => {
    const s = JSON.stringify(x);
    return s.length > 400 ? s.slice(0, 400) + '…' : s;
};
let nframes = 0;
const lines = fs.readFileSync(framesFile, 'utf8').split('\n');
lines.forEach((line, i) => {
    if (!line.trim()) return;
    nframes++;
    let rec;
    try {
        rec = JSON.parse(line);
    } catch (e) {
        fail(`line ${i + 1}: not JSON: ${e.message}`);
        return;
    }
    if (rec.dir === 'bad' || rec.dir === 'badin') {
        const side = rec.dir === 'bad' ? 'client' : 'server';
        let f;
        try {
            f = JSON.parse(rec.text);
        } catch (e) {
            ok(); // not JSON: no schema can accept it
            return;
        }
        const v = f && typeof f === 'object' && typeof f.type === 'string' && validators[side][f.type];
        if (v && v(f)) fail(`line ${i + 1}: a malformed ${side} frame validates: ${rec.text}`);
        else ok();
        return;
    }
    const dir = rec.dir === 'in' ? 'server' : rec.dir === 'out' ? 'client' : null;
    const f = rec.frame;
    if (!dir) {
        fail(`line ${i + 1}: unknown dir ${rec.dir}`);
        return;
    }
    if (!f || typeof f !== 'object' || Array.isArray(f) || typeof f.type !== 'string') {
        fail(`line ${i + 1}: ${dir} frame is not an object with a string type: ${short(f)}`);
        return;
    }
    const v = validators[dir][f.type];
    if (!v) {
        fail(`line ${i + 1}: ${dir} message "${f.type}" has no schema: ${short(f)}`);
        return;
    }
    seen[dir].add(f.type);
    if (v(f)) ok();
    else fail(`line ${i + 1}: ${dir}/${f.type}: ${errors(v)}: ${short(f)}`);
});

if (nframes === 0) fail('no frames captured');
for (const dir of coverage ? ['client', 'server'] : [])
    for (const t of documented[dir]) {
        if (seen[dir].has(t)) ok();
        else fail(`the capture has no ${dir} "${t}" message: the tests do not cover it`);
    }

console.log(`validate_frames: ${nframes} frames, ${schemaFiles.length} schemas`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
