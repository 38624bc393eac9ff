#!/usr/bin/env bash
# Rebuilds intro.jar from Intro.java (Java 11 bytecode, with debug information).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
javac --release 11 -g -d "$classes" "$here/Intro.java"
jar --create --file "$here/intro.jar" --main-class Intro -C "$classes" .
