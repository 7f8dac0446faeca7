package debuginfo

// Dirs are the directories the command line names for separate debug files
// (bpftrace's --debuginfo), searched before the standard places. Set once,
// before the first Open.
var Dirs []string
