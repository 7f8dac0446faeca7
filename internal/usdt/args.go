package usdt

import (
	"fmt"
	"strconv"
	"strings"
)

// ArgKind says where an argument's value is.
type ArgKind uint8

// Argument kinds.
const (
	ArgConst ArgKind = iota // $IMM: the value itself
	ArgReg                  // %REG: the register's value
	ArgMem                  // OFF(%BASE[,%INDEX[,SCALE]]): memory at the address
)

// Arg is one parsed argument of a probe.
type Arg struct {
	Size   int  // bytes: 1, 2, 4 or 8
	Signed bool // the size was written negative
	Kind   ArgKind
	// Value is the constant of ArgConst and the displacement of ArgMem.
	Value int64
	// Reg is the register of ArgReg and the base of ArgMem; Index and
	// Scale the optional index register of ArgMem ("" for none). Register
	// names are struct pt_regs members: "ax", "r8", "ip".
	Reg   string
	Index string
	Scale int64
}

// String renders the argument the way a note writes it, with canonical
// 64-bit register names.
func (a Arg) String() string {
	size := strconv.Itoa(a.Size)
	if a.Signed {
		size = "-" + size
	}
	switch a.Kind {
	case ArgConst:
		return fmt.Sprintf("%s@$%d", size, a.Value)
	case ArgReg:
		return fmt.Sprintf("%s@%%%s", size, a.Reg)
	}
	s := size + "@"
	if a.Value != 0 {
		s += strconv.FormatInt(a.Value, 10)
	}
	if a.Index == "" {
		return s + "(%" + a.Reg + ")"
	}
	return fmt.Sprintf("%s(%%%s,%%%s,%d)", s, a.Reg, a.Index, a.Scale)
}

// ParseArgs parses an x86-64 argument specification: arguments separated
// by spaces, each SIZE@OPERAND.
func ParseArgs(spec string) ([]Arg, error) {
	var out []Arg
	for _, f := range strings.Fields(spec) {
		a, err := ParseArg(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// ParseArg parses one argument: "-4@%eax", "8@-8(%rbp)", "4@$5",
// "8@16(%rax,%rdx,8)".
func ParseArg(s string) (Arg, error) {
	sz, op, ok := strings.Cut(s, "@")
	if !ok {
		return Arg{}, fmt.Errorf("argument %q has no size (SIZE@OPERAND)", s)
	}
	n, err := strconv.Atoi(sz)
	if err != nil {
		return Arg{}, fmt.Errorf("argument %q: bad size %q", s, sz)
	}
	a := Arg{Size: n, Signed: n < 0}
	if a.Signed {
		a.Size = -n
	}
	switch a.Size {
	case 1, 2, 4, 8:
	default:
		return Arg{}, fmt.Errorf("argument %q: size %d is not 1, 2, 4 or 8", s, a.Size)
	}
	switch {
	case strings.HasPrefix(op, "$"):
		v, err := parseInt(op[1:])
		if err != nil {
			return Arg{}, fmt.Errorf("argument %q: bad constant: %w", s, err)
		}
		a.Kind, a.Value = ArgConst, v
	case strings.HasPrefix(op, "%"):
		r, err := register(op)
		if err != nil {
			return Arg{}, fmt.Errorf("argument %q: %w", s, err)
		}
		a.Kind, a.Reg = ArgReg, r
	default:
		open := strings.IndexByte(op, '(')
		if open < 0 || !strings.HasSuffix(op, ")") {
			return Arg{}, fmt.Errorf("argument %q: unsupported operand %q", s, op)
		}
		a.Kind = ArgMem
		if disp := op[:open]; disp != "" {
			v, err := parseInt(disp)
			if err != nil {
				return Arg{}, fmt.Errorf("argument %q: bad displacement: %w", s, err)
			}
			a.Value = v
		}
		inner := strings.Split(op[open+1:len(op)-1], ",")
		if len(inner) > 3 {
			return Arg{}, fmt.Errorf("argument %q: unsupported operand %q", s, op)
		}
		if a.Reg, err = register(inner[0]); err != nil {
			return Arg{}, fmt.Errorf("argument %q: %w", s, err)
		}
		if len(inner) >= 2 {
			if a.Index, err = register(inner[1]); err != nil {
				return Arg{}, fmt.Errorf("argument %q: %w", s, err)
			}
			a.Scale = 1
		}
		if len(inner) == 3 {
			a.Scale, err = strconv.ParseInt(strings.TrimSpace(inner[2]), 10, 64)
			if err != nil || (a.Scale != 1 && a.Scale != 2 && a.Scale != 4 && a.Scale != 8) {
				return Arg{}, fmt.Errorf("argument %q: bad scale %q", s, inner[2])
			}
		}
	}
	return a, nil
}

// parseInt parses a decimal or 0x hexadecimal integer, maybe negative; a
// value that only fits unsigned wraps.
func parseInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

// registers maps every x86-64 register name of an operand (all widths) to
// its struct pt_regs member.
var registers = func() map[string]string {
	m := map[string]string{"rip": "ip", "eip": "ip"}
	for _, r := range []string{"ax", "bx", "cx", "dx"} {
		m["r"+r], m["e"+r], m[r] = r, r, r
		m[r[:1]+"l"] = r
	}
	for _, r := range []string{"si", "di", "bp", "sp"} {
		m["r"+r], m["e"+r], m[r], m[r+"l"] = r, r, r, r
	}
	for i := 8; i <= 15; i++ {
		r := "r" + strconv.Itoa(i)
		m[r], m[r+"d"], m[r+"w"], m[r+"b"] = r, r, r, r
	}
	return m
}()

// register returns the pt_regs member of a "%reg" operand.
func register(op string) (string, error) {
	op = strings.TrimSpace(op)
	name, ok := strings.CutPrefix(op, "%")
	if !ok {
		return "", fmt.Errorf("bad register %q", op)
	}
	r, ok := registers[name]
	if !ok {
		return "", fmt.Errorf("unsupported register %q", op)
	}
	return r, nil
}
