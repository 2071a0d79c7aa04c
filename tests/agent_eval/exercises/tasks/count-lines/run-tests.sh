#!/usr/bin/env bash
set -eu
test "$(cat count.txt)" = "$(wc -l < data.txt | tr -d ' ')"
