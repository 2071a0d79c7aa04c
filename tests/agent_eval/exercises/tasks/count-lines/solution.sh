#!/usr/bin/env bash
wc -l < data.txt | tr -d ' ' > count.txt
