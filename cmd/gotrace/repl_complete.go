package main

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/provider"
)

// replCommands are the REPL's commands, for completion.
var replCommands = []string{`\asm`, `\detach`, `\help`, `\load`, `\maps`, `\print`, `\probes`, `\q`, `\save`, `\watch`}

// completer completes the word before the cursor (readline.AutoCompleter):
// commands, probe types, attach points (each provider's own listing:
// tracepoints from tracefs, kernel functions, the symbols of a binary
// named in a uprobe), builtins and functions, map names, and the
// $variables of the entry being typed.
type completer struct {
	r *replSession

	mu     sync.Mutex
	points map[string][]string // attach points listed, by kind and target
}

// Do implements readline.AutoCompleter: the candidates' remaining text, and
// the length of the word they complete.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	entry := ""
	if c.r != nil {
		c.r.mu.Lock()
		entry = c.r.input
		c.r.mu.Unlock()
	}
	// An attach point holds '/', '-' and '.' (uprobe:/bin/bash:...); an
	// expression ends a word at an operator.
	seps := " \t{}();,=+-*/%!<>&|^~?[]\""
	if !inBlock(entry + before) {
		seps = " \t,{"
	}
	start := strings.LastIndexAny(before, seps) + 1
	word := before[start:]
	var out [][]rune
	for _, cand := range c.candidates(word, entry+before[:start]) {
		if strings.HasPrefix(cand, word) && cand != word {
			out = append(out, []rune(cand[len(word):]))
		}
	}
	return out, len([]rune(word))
}

// candidates returns the names word may complete to; context is the entry
// before the word.
func (c *completer) candidates(word, context string) []string {
	switch {
	case strings.HasPrefix(word, `\`):
		return replCommands
	case strings.HasPrefix(context, `\`):
		// A command's argument: map names.
		if strings.HasPrefix(word, "@") {
			return c.mapNames()
		}
		return nil
	case strings.HasPrefix(word, "@"):
		return c.mapNames()
	case strings.HasPrefix(word, "$"):
		return scratchVars(context + word)
	case !inBlock(context):
		if strings.Contains(word, ":") {
			return c.attachPoints(word)
		}
		return probeTypes()
	}
	return builtinNames()
}

// inBlock reports whether the text ends inside a probe's braces.
func inBlock(context string) bool {
	return strings.Count(context, "{") > strings.Count(context, "}")
}

// mapNames lists the session's maps.
func (c *completer) mapNames() []string {
	if c.r == nil || c.r.sess == nil {
		return nil
	}
	return c.r.sess.MapNames()
}

var varRe = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

// scratchVars lists the $variables of the entry.
func scratchVars(entry string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range varRe.FindAllString(entry, -1) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// probeTypes lists the probe types as "kind:", and those written bare
// (BEGIN, END) as they are written.
func probeTypes() []string {
	var out []string
	for _, p := range provider.All() {
		if !p.Supported() {
			continue
		}
		if p.Bare != "" {
			out = append(out, p.Bare)
			continue
		}
		out = append(out, p.Name+":")
		for _, a := range p.Aliases {
			out = append(out, a+":")
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// builtinNames lists the builtin variables and functions ("name(").
func builtinNames() []string {
	var out []string
	for _, v := range builtin.Vars() {
		out = append(out, v.Name)
	}
	for _, f := range builtin.Funcs() {
		out = append(out, f.Name+"(")
	}
	sort.Strings(out)
	return out
}

// attachPoints lists the attach points of word's probe type that word may
// complete to, through the provider's listing (cached per type and, for
// uprobes, binary). A candidate stops after the next ':' past the word, so
// that a tracepoint category completes before its events.
func (c *completer) attachPoints(word string) []string {
	kind, rest, _ := strings.Cut(word, ":")
	def := provider.Lookup(kind)
	if def == nil || def.List == nil {
		return nil
	}
	pattern := "*"
	key := def.Name
	if def.ListUser {
		// uprobe:/bin/bash:sym — the binary is needed before symbols.
		bin, _, ok := strings.Cut(rest, ":")
		if !ok {
			return nil
		}
		pattern = bin + ":*"
		key += ":" + bin
	}
	c.mu.Lock()
	if c.points == nil {
		c.points = map[string][]string{}
	}
	all, ok := c.points[key]
	c.mu.Unlock()
	if !ok {
		var b bytes.Buffer
		_ = def.List(&b, provider.WithListTarget(gotrace.NewKernelEnv(), provider.Target{}), pattern, false)
		sc := bufio.NewScanner(&b)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				all = append(all, l)
			}
		}
		c.mu.Lock()
		c.points[key] = all
		c.mu.Unlock()
	}
	// The listing names the provider; the word may use an alias.
	prefix := def.Name + ":" + rest
	var out []string
	for _, p := range all {
		if !strings.HasPrefix(p, prefix) {
			// Kernel functions list as fentry:vmlinux:vfs_read; the
			// module may be left out.
			short := strings.Replace(p, ":vmlinux:", ":", 1)
			if !strings.HasPrefix(short, prefix) {
				continue
			}
			p = short
		}
		cand := p
		if i := strings.IndexByte(p[len(prefix):], ':'); i >= 0 {
			cand = p[:len(prefix)+i+1]
		}
		out = append(out, kind+":"+strings.TrimPrefix(cand, def.Name+":"))
	}
	sort.Strings(out)
	return slices.Compact(out)
}
