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

package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one control-plane process the cluster started.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// startProcess runs binary with args, logging to <workDir>/<name>.log. The
// child is in its own process group and gets SIGKILL if this process dies, so
// nothing is left behind even on a crash.
func (c *Cluster) startProcess(name, binary string, args ...string) (*process, error) {
	logPath := filepath.Join(c.WorkDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating log for %s: %w", name, err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	if err := c.track(p); err != nil {
		return nil, err
	}
	return p, nil
}

// stop sends SIGTERM to the process group, then SIGKILL after a grace period.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	// A paused process (Pause) acts on SIGTERM only once it runs again.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	return nil
}

// Kill sends SIGKILL to the named process (for failover tests).
func (c *Cluster) Kill(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.processes {
		if p.name == name {
			return syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	return fmt.Errorf("no process named %s", name)
}

// failure builds an error that says where the process's log is and quotes
// its last lines, so a failed start can be diagnosed from the test output.
func (p *process) failure(err error) error {
	tail := ""
	if data, readErr := os.ReadFile(p.logPath); readErr == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		tail = "\n  " + strings.Join(lines, "\n  ")
	}
	return fmt.Errorf("%s did not become healthy (log: %s): %w%s", p.name, p.logPath, err, tail)
}

// waitHealthy polls <scheme>://127.0.0.1:port/healthz until it answers 200,
// the process exits or startTimeout passes.
func (p *process) waitHealthy(scheme string, port int) error {
	client := &http.Client{
		Timeout: 2 * time.Second,
		// The components serve a self-signed certificate on their health port.
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // local health probe only
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	url := fmt.Sprintf("%s://127.0.0.1:%d/healthz", scheme, port)
	ticker := time.NewTicker(200 * time.Millisecond)
	defer ticker.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return p.failure(fmt.Errorf("exited: %w", p.waitErr))
		case <-ctx.Done():
			_ = p.stop()
			return p.failure(errors.New("timed out waiting for /healthz"))
		case <-ticker.C:
		}
	}
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) { return freePortOn("127.0.0.1") }

// freePortOn asks the kernel for an unused port on a local address.
func freePortOn(address string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		return 0, fmt.Errorf("finding a free port on %s: %w", address, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Process is a process started with Cluster.Run.
type Process struct{ p *process }

// Run starts any binary (for example the operator itself) as a process the
// cluster stops with everything else; its output goes to <WorkDir>/<name>.log.
func (c *Cluster) Run(name, binary string, args ...string) (*Process, error) {
	p, err := c.startProcess(name, binary, args...)
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// Kill sends SIGKILL to the process group, as a crash or OOM kill would.
func (p *Process) Kill() error {
	if err := syscall.Kill(-p.p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing %s: %w", p.p.name, err)
	}
	<-p.p.done
	return nil
}

// Stop sends SIGTERM and waits (SIGKILL after a grace period).
func (p *Process) Stop() error { return p.p.stop() }

// Pause sends SIGSTOP to the process group: it stops running at once, its
// connections stay open and its timers do not fire until Resume, as a long
// garbage-collection pause or a frozen VM would have it.
func (p *Process) Pause() error {
	if err := syscall.Kill(-p.p.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing %s: %w", p.p.name, err)
	}
	return nil
}

// Resume sends SIGCONT to the process group after Pause.
func (p *Process) Resume() error {
	if err := syscall.Kill(-p.p.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming %s: %w", p.p.name, err)
	}
	return nil
}

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.p.done:
		return true
	default:
		return false
	}
}

// LogPath is where the process's output goes.
func (p *Process) LogPath() string { return p.p.logPath }

// Pid is the process id, for reading its CPU time and memory from /proc
// (benchmarks). The process leads its own process group.
func (p *Process) Pid() int { return p.p.cmd.Process.Pid }
