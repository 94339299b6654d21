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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// persistentDirs points etcd's data and kube-apiserver's certificates at
// directories in WorkDir, which envtest neither generates anew nor deletes
// on stop, and sends their output to log files there.
func (c *Cluster) persistentDirs() error {
	cp := &c.env.ControlPlane
	if cp.Etcd == nil {
		cp.Etcd = &envtest.Etcd{}
	}
	cp.Etcd.DataDir = filepath.Join(c.WorkDir, "etcd-data")
	api := c.env.ControlPlane.GetAPIServer()
	api.CertDir = filepath.Join(c.WorkDir, "kube-apiserver-certs")
	for _, dir := range []string{cp.Etcd.DataDir, api.CertDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	var err error
	if cp.Etcd.Out, err = c.openLog("etcd"); err != nil {
		return err
	}
	cp.Etcd.Err = cp.Etcd.Out
	if api.Out, err = c.openLog("kube-apiserver"); err != nil {
		return err
	}
	api.Err = api.Out
	return nil
}

// openLog opens <WorkDir>/<name>.log for appending: a restarted process
// continues the log of the one before.
func (c *Cluster) openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(c.WorkDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the log of %s: %w", name, err)
	}
	c.logs = append(c.logs, f)
	return f, nil
}

func (c *Cluster) closeLogs() {
	for _, f := range c.logs {
		_ = f.Close()
	}
	c.logs = nil
}

// RestartAPIServer stops kube-apiserver and starts it again on the same port
// with the same certificates, so every client's configuration stays valid.
// hard sends SIGKILL (a crash); otherwise SIGTERM, as a rolling update does,
// and SIGKILL if it has not stopped after envtest's stop timeout. It returns
// once the new process is healthy. Needs Options.Restartable.
func (c *Cluster) RestartAPIServer(hard bool) error {
	if !c.restartable {
		return errors.New("RestartAPIServer needs a cluster started with Options.Restartable")
	}
	api := c.env.ControlPlane.GetAPIServer()
	return restart(api.Path, "--secure-port="+api.SecureServing.Port, hard, api.Stop, api.Start)
}

// RestartAPIServerWith restarts kube-apiserver as RestartAPIServer does
// (SIGTERM), with args (name without dashes → value) changed first, as an
// admin edits kube-apiserver's static pod manifest: for example a
// service-cluster-ip-range that gained an IPv6 range. Needs
// Options.Restartable.
func (c *Cluster) RestartAPIServerWith(args map[string]string) error {
	if !c.restartable {
		return errors.New("RestartAPIServerWith needs a cluster started with Options.Restartable")
	}
	api := c.env.ControlPlane.GetAPIServer()
	for k, v := range args {
		api.Configure().Set(k, v)
	}
	if v, ok := args["service-cluster-ip-range"]; ok {
		c.mu.Lock()
		c.serviceCIDR = v
		c.mu.Unlock()
	}
	return restart(api.Path, "--secure-port="+api.SecureServing.Port, false, api.Stop, api.Start)
}

// RestartEtcd stops etcd and starts it again on the same URL with the same
// data, as RestartAPIServer does kube-apiserver. Needs Options.Restartable.
func (c *Cluster) RestartEtcd(hard bool) error {
	if !c.restartable {
		return errors.New("RestartEtcd needs a cluster started with Options.Restartable")
	}
	etcd := c.env.ControlPlane.Etcd
	return restart(etcd.Path, "--data-dir="+etcd.DataDir, hard, etcd.Stop, etcd.Start)
}

// goneTimeout bounds the wait for a killed process to exit.
const goneTimeout = 30 * time.Second

// restartStartTimeout and restartStopTimeout replace envtest's 20s for
// the processes of a restartable cluster; startAttempts is how often a
// restart tries to start a process that did not come up.
const (
	restartStartTimeout = 2 * time.Minute
	restartStopTimeout  = time.Minute
	startAttempts       = 3
)

// restart stops and starts one of envtest's processes. The process is
// started again whatever the stop did: a stop that timed out has sent
// SIGKILL, so the process is waited for (it must release its port) and
// started anyway.
func restart(binary, marker string, hard bool, stop, start func() error) error {
	if hard {
		if err := killChild(binary, marker); err != nil {
			return err
		}
	}
	stopErr := stop()
	if stopErr != nil {
		if err := killAndWait(binary, marker); err != nil {
			return errors.Join(stopErr, err)
		}
	}
	// A start that timed out left a process envtest only sent SIGTERM; it
	// is killed, and the start tried again: the cluster must come back.
	var startErrs []error
	for range startAttempts {
		err := start()
		if err == nil {
			return nil
		}
		startErrs = append(startErrs, fmt.Errorf("starting %s again: %w", filepath.Base(binary), err))
		if err := killAndWait(binary, marker); err != nil {
			return errors.Join(append(startErrs, err)...)
		}
	}
	return errors.Join(append([]error{stopErr}, startErrs...)...)
}

// killAndWait sends SIGKILL to the child running binary with marker, if
// there is one, and waits until it is gone (it must release its port).
func killAndWait(binary, marker string) error {
	_ = killChild(binary, marker)
	deadline := time.Now().Add(goneTimeout)
	for {
		if _, err := findChild(binary, marker); err != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not exit after SIGKILL", filepath.Base(binary))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// AddAPIServer starts another kube-apiserver on the cluster's etcd, with
// args on top of the first one's service range (for example
// "watch-cache": "false" for a recorder that must resume watches from any
// revision etcd still has), and returns an admin configuration for it.
// RestartAPIServer does not touch it; Stop stops it.
func (c *Cluster) AddAPIServer(name string, args map[string]string) (*rest.Config, error) {
	main := c.env.ControlPlane.GetAPIServer()
	s := &envtest.APIServer{EtcdURL: c.env.ControlPlane.Etcd.URL, Path: main.Path}
	s.Configure().Set("service-cluster-ip-range", c.serviceCIDR)
	for k, v := range args {
		s.Configure().Set(k, v)
	}
	out, err := c.openLog(name)
	if err != nil {
		return nil, err
	}
	s.Out, s.Err = out, out
	if err := s.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c.mu.Lock()
	c.extraAPIServers = append(c.extraAPIServers, s)
	c.mu.Unlock()
	base := &rest.Config{
		Host:            s.SecureServing.URL("https", "/").String(),
		TLSClientConfig: rest.TLSClientConfig{CAData: s.SecureServing.CA},
	}
	cfg, err := s.SecureServing.AddUser(envtest.User{Name: "podnetwork-admin", Groups: []string{"system:masters"}}, base)
	if err != nil {
		return nil, fmt.Errorf("adding an admin user to %s: %w", name, err)
	}
	return cfg, nil
}

// killChild sends SIGKILL to the child process of this one that runs binary
// with an argument containing marker. envtest keeps its processes to
// itself, so the child is found in /proc; only direct children are
// considered, so nothing this process did not start is ever touched.
func killChild(binary, marker string) error {
	pid, err := findChild(binary, marker)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing %s (pid %d): %w", filepath.Base(binary), pid, err)
	}
	return nil
}

func findChild(binary, marker string) (int, error) {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("listing processes: %w", err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses and
		// may contain spaces: state, then the parent's pid.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) == 0 || args[0] != binary {
			continue
		}
		for _, a := range args[1:] {
			if strings.Contains(a, marker) {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no child process %s with an argument containing %q", binary, marker)
}
