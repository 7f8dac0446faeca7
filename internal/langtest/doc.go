// Package langtest holds test helpers shared by the tests of the language
// stages (lang/syntax, lang/check): checks that the positions they report
// agree with the source text.
package langtest
