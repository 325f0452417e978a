#!/usr/bin/env node
console.log("aeb");
