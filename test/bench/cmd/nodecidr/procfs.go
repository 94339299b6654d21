package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. It
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// cpuSeconds returns the user plus system CPU time the process has used.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time of pid %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces; the
	// fields after the last ')' start with field 3 (state).
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("pid %d: short /proc stat line %q", pid, s)
	}
	utime, err1 := strconv.ParseUint(fields[11], 10, 64) // field 14
	stime, err2 := strconv.ParseUint(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pid %d: unparsable utime/stime in %q", pid, s)
	}
	return float64(utime+stime) / clockTicks, nil
}

// memoryKiB returns a field of /proc/<pid>/status in KiB: VmHWM (peak
// resident set) or VmRSS (current).
func memoryKiB(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading memory of pid %d: %w", pid, err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pid %d: unparsable %s %q: %w", pid, field, rest, err)
		}
		return v, nil
	}
	return 0, fmt.Errorf("pid %d: no %s in /proc status", pid, field)
}
