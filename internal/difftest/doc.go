// Package difftest renders the difference between an expected and an
// actual text as a compact line diff, for test failures that compare
// golden outputs: a failing test shows what changed, not two whole texts.
package difftest
