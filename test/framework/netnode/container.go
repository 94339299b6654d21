/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package netnode

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Restart back-off, as the kubelet's (10 s doubling to 5 min), shortened
// for tests.
const (
	backoffInitial = 500 * time.Millisecond
	backoffMax     = 5 * time.Second
	stopGrace      = 5 * time.Second
)

// ContainerState is what the kubelet stand-in knows of one pod's program.
type ContainerState struct {
	// Running is true while the program runs.
	Running bool
	// Ready is true while it runs and its readiness probe passes.
	Ready bool
	// Restarts counts the times the program exited and was started again.
	Restarts int
	// StartedAt is when the current run started.
	StartedAt time.Time
	// LastExit describes the last exit, if any.
	LastExit string
}

// mount is a bind mount of a prepared directory at a path inside the
// container's mount namespace.
type mount struct {
	source, target string
	readOnly       bool
}

// container runs one pod's program, restarting it when it exits.
type container struct {
	key     types.NamespacedName
	node    *Node
	spec    corev1.Container
	binary  string
	mounts  []mount
	env     []string
	logDir  string
	created time.Time
	uid     types.UID
	// refresh rewrites the pod's volumes from the API before a restart and
	// returns the ConfigMap files it wrote.
	refresh func(context.Context) (map[string]string, error)
	// record adds to the kubelet's history.
	record func(ContainerEvent)

	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{}
	stopping bool
	ready    bool
	restarts int
	started  time.Time
	lastExit string
	nextTry  time.Time
	// configs are the ConfigMap files the next start is given.
	configs map[string]string
}

// event returns a history entry about this container.
func (c *container) event(kind ContainerEventKind, message string) ContainerEvent {
	return ContainerEvent{
		Kind: kind, Pod: c.key, UID: c.uid, Node: c.node.Name, Container: c.spec.Name, At: time.Now(), Message: message,
		Log: c.logPath(c.restarts),
	}
}

// logPath is the log file of the program's run after restarts restarts.
func (c *container) logPath(restarts int) string {
	return filepath.Join(c.logDir, fmt.Sprintf("%s.%d.log", c.spec.Name, restarts))
}

// start runs the program once. The shell (inside `ip netns exec`, which
// gives it a mount namespace of its own whose mounts never reach the host)
// bind-mounts the volumes, then execs the program, so the program's PID is
// the one started here.
func (c *container) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, m := range c.mounts {
		fmt.Fprintf(&script, "mkdir -p %q && mount --bind %q %q\n", m.target, m.source, m.target)
		if m.readOnly {
			fmt.Fprintf(&script, "mount -o remount,bind,ro %q\n", m.target)
		}
	}
	script.WriteString(`exec "$@"` + "\n")
	args := []string{"netns", "exec", c.node.Netns, "sh", "-c", script.String(), "sh", c.binary}
	for _, a := range append(c.spec.Command[min(1, len(c.spec.Command)):], c.spec.Args...) {
		args = append(args, expand(a, c.env))
	}
	cmd := exec.Command("ip", args...)
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.OpenFile(c.logPath(c.restarts), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err == nil {
		cmd.Stdout, cmd.Stderr = log, log
	}
	c.cmd, c.done, c.ready, c.started = cmd, make(chan struct{}), false, time.Now()
	if err := cmd.Start(); err != nil {
		c.lastExit = err.Error()
		c.emit(c.event(ContainerExited, "could not start: "+err.Error()))
		close(c.done)
		return
	}
	started := c.event(ContainerStarted, "")
	started.ConfigMaps = c.configs
	c.emit(started)
	done := c.done
	go func() {
		err := cmd.Wait()
		if log != nil {
			// The program has exited: a failed close can lose only the
			// tail of its log, which nothing reads for a verdict.
			_ = log.Close()
		}
		c.mu.Lock()
		c.lastExit = fmt.Sprintf("%v at %s", err, time.Now().Format(time.RFC3339))
		kind := ContainerExited
		if c.stopping {
			kind = ContainerStopped
		}
		c.emit(c.event(kind, fmt.Sprint(err)))
		c.mu.Unlock()
		close(done)
	}()
}

func (c *container) emit(ev ContainerEvent) {
	if c.record != nil {
		c.record(ev)
	}
}

func (c *container) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// observe restarts an exited program once its back-off has passed, runs the
// readiness probe and returns the state.
func (c *container) observe(ctx context.Context) ContainerState {
	c.mu.Lock()
	if c.exited() && !c.stopping {
		if c.nextTry.IsZero() {
			backoff := min(backoffInitial<<min(c.restarts, 10), backoffMax)
			c.nextTry = time.Now().Add(backoff)
		}
		if time.Now().After(c.nextTry) {
			c.nextTry = time.Time{}
			c.restarts++
			c.mu.Unlock()
			if c.refresh != nil {
				// A failed refresh restarts with the files as they were.
				if configs, err := c.refresh(ctx); err == nil {
					c.mu.Lock()
					c.configs = configs
					c.mu.Unlock()
				}
			}
			c.start()
			c.mu.Lock()
		}
	}
	running := !c.exited()
	pid := 0
	if running && c.cmd.Process != nil {
		pid = c.cmd.Process.Pid
	}
	c.mu.Unlock()

	ready := running && c.probe(ctx, pid)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready = ready && !c.exited()
	return c.stateLocked()
}

func (c *container) state() ContainerState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stateLocked()
}

func (c *container) stateLocked() ContainerState {
	running := !c.exited()
	return ContainerState{Running: running, Ready: running && c.ready, Restarts: c.restarts, StartedAt: c.started, LastExit: c.lastExit}
}

// probe runs the container's readiness probe: an HTTP GET on the node's
// address (host-network pods), or a command run inside the program's
// namespaces. Without a probe a running program is ready, as with the
// kubelet.
func (c *container) probe(ctx context.Context, pid int) bool {
	p := c.spec.ReadinessProbe
	if p == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	switch {
	case p.HTTPGet != nil:
		url := fmt.Sprintf("http://%s%s", hostPort(c.node.IPv4, p.HTTPGet.Port.IntValue()), p.HTTPGet.Path)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode >= 200 && resp.StatusCode < 400
	case p.Exec != nil:
		args := append([]string{"--target", fmt.Sprint(pid), "--mount", "--net", "--"}, p.Exec.Command...)
		return exec.CommandContext(ctx, "nsenter", args...).Run() == nil
	}
	return false
}

// stop ends the program: SIGTERM to its process group, SIGKILL after the
// grace period.
func (c *container) stop() {
	c.mu.Lock()
	c.stopping = true
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// varRef is a $(VAR) reference in a command or argument.
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces $(VAR) with the value of VAR in env (NAME=value entries),
// as the kubelet does in a container's command and args; unknown
// references stay as they are.
func expand(s string, env []string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		for _, e := range env {
			if k, v, ok := strings.Cut(e, "="); ok && k == name {
				return v
			}
		}
		return ref
	})
}

func (c *container) logTail(lines int) string {
	c.mu.Lock()
	restarts := c.restarts
	c.mu.Unlock()
	b, err := os.ReadFile(c.logPath(restarts))
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
