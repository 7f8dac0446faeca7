package main

import (
	"fmt"
	"strings"
)

// option is one command-line option, as getopt_long describes it: a short
// letter, a long name, or both, and whether it takes an argument.
type option struct {
	short  byte   // 0 for long-only options
	long   string // "" for short-only options
	hasArg bool
	set    func(arg string) error
}

// usageError is a command-line error that prints the usage after it, as
// getopt's unrecognized or incomplete options do in bpftrace.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// getopt parses args the way glibc's getopt_long does with argument
// permutation, which is how bpftrace reads its command line: options may
// come before or after the operands (`x.bt -p 1` sets -p), short options
// cluster (`-lv`), an option's argument is attached or the next word
// (`-p1`, `-p 1`, `--pid=1`, `--pid 1`), long names may be abbreviated to
// a unique prefix, and `--` ends the options. It calls each option's set
// in command-line order and returns the operands in order, the words after
// `--` last and untouched.
func getopt(args []string, opts []option) ([]string, error) {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o, err := findLong(opts, name, a)
			if err != nil {
				return nil, err
			}
			switch {
			case !o.hasArg && hasVal:
				return nil, &usageError{fmt.Sprintf("option '--%s' doesn't allow an argument", o.long)}
			case o.hasArg && !hasVal:
				if i+1 >= len(args) {
					return nil, &usageError{fmt.Sprintf("option '--%s' requires an argument", o.long)}
				}
				i++
				val = args[i]
			}
			if err := o.set(val); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o := findShort(opts, a[j])
				if o == nil {
					return nil, &usageError{fmt.Sprintf("invalid option -- '%c'", a[j])}
				}
				if !o.hasArg {
					if err := o.set(""); err != nil {
						return nil, err
					}
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, &usageError{fmt.Sprintf("option requires an argument -- '%c'", a[j])}
					}
					i++
					val = args[i]
				}
				if err := o.set(val); err != nil {
					return nil, err
				}
				break
			}
		default:
			// An operand, "-" (stdin) included.
			operands = append(operands, a)
		}
	}
	return operands, nil
}

func findShort(opts []option, c byte) *option {
	for i := range opts {
		if opts[i].short == c {
			return &opts[i]
		}
	}
	return nil
}

// findLong finds a long option by its name or a unique prefix of it.
func findLong(opts []option, name, word string) (*option, error) {
	var match []*option
	for i := range opts {
		o := &opts[i]
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, nil
		}
		if name != "" && strings.HasPrefix(o.long, name) {
			match = append(match, o)
		}
	}
	switch len(match) {
	case 0:
		return nil, &usageError{fmt.Sprintf("unrecognized option '%s'", word)}
	case 1:
		return match[0], nil
	}
	return nil, &usageError{fmt.Sprintf("option '%s' is ambiguous", word)}
}
