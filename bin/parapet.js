#!/usr/bin/env node
// The `parapet` command: a thin shim over the compiled CLI (npm install builds it).
import '../dist/cli/index.js';
