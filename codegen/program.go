package codegen

import "github.com/gotrace/gotrace/object"

// Temporary aliases of the contract types, removed by the mechanical rename
// that follows.
type (
	Program       = object.Program
	GlobalsLayout = object.GlobalsLayout
	ProbeKind     = object.ProbeKind
	Probe         = object.Probe
	Map           = object.Map
	EventKind     = object.EventKind
	Printf        = object.Printf
	Arg           = object.Arg
	HelperSite    = object.HelperSite
)

const (
	EventHeaderSize    = object.EventHeaderSize
	EventPrintf        = object.EventPrintf
	EventExit          = object.EventExit
	EventPrint         = object.EventPrint
	EventClear         = object.EventClear
	EventZero          = object.EventZero
	EventTime          = object.EventTime
	EventErrorf        = object.EventErrorf
	EventWarnf         = object.EventWarnf
	EventPrintValue    = object.EventPrintValue
	EventSystem        = object.EventSystem
	EventCat           = object.EventCat
	EventDropped       = object.EventDropped
	EventJoin          = object.EventJoin
	EventHelperError   = object.EventHelperError
	ProbeBegin         = object.ProbeBegin
	ProbeEnd           = object.ProbeEnd
	ProbeTracepoint    = object.ProbeTracepoint
	ProbeInterval      = object.ProbeInterval
	ProbeProfile       = object.ProbeProfile
	ProbeSoftware      = object.ProbeSoftware
	ProbeRawTracepoint = object.ProbeRawTracepoint
	ProbeKprobe        = object.ProbeKprobe
	ProbeKretprobe     = object.ProbeKretprobe
	ProbeFentry        = object.ProbeFentry
	ProbeFexit         = object.ProbeFexit
	ProbeUprobe        = object.ProbeUprobe
	ProbeUretprobe     = object.ProbeUretprobe
)
