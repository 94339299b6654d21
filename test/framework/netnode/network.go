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

// Package netnode runs the real programs the operator configures (flanneld,
// kube-proxy) the way a cluster runs them: each test node is a Linux network
// namespace with its own interfaces, routes and firewall rules, wired to a
// bridge in the host namespace, and a small kubelet stand-in starts the
// program of every DaemonSet pod bound to the node with the pod's ConfigMap
// as a file, reports the pod Ready from the program's own readiness, and
// stops the program when the pod goes.
//
// Every address lives inside namespaces the package creates: the bridge and
// the nodes use a /24 of 198.18.0.0/16 and a /64 of fd99::/48 (the prefix
// reserved for benchmarking and unique-local space), and the programs configure pod ranges
// only inside the node namespaces. It needs root and iproute2.
package netnode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxNodes bounds the nodes of one network: node i gets .(10+i) of the
// network's /24.
const maxNodes = 200

// subnets is how many networks can run on one machine at a time: network k
// uses 198.18.k.0/24 and fd99:0:0:k::/64.
const subnets = 256

// Network is a bridge in the host namespace and the node namespaces wired to
// it. The zero value is not usable; call New.
type Network struct {
	// Bridge is the bridge interface's name.
	Bridge string
	// Gateway4 and Gateway6 are the bridge's addresses in the host
	// namespace: node namespaces reach the host (and so kube-apiserver)
	// through them.
	Gateway4, Gateway6 netip.Prefix
	// prefix starts every interface and namespace name, so two networks on
	// one machine never clash.
	prefix string

	mu    sync.Mutex
	next  int
	nodes map[string]*Node
}

// New creates the bridge (named prefix+"br", at most 15 characters) on the
// first /24 of 198.18.0.0/16 (and /64 of fd99::/48) no other network on the
// machine uses, so test runs in parallel never share addresses. prefix must
// be short (≤ 8 characters) and unique on the machine.
func New(prefix string) (*Network, error) {
	if len(prefix) > 8 {
		return nil, fmt.Errorf("network prefix %q is longer than 8 characters", prefix)
	}
	n := &Network{Bridge: prefix + "br", prefix: prefix, nodes: map[string]*Node{}}
	_ = run("ip", "link", "del", n.Bridge) // left over by a killed run
	// Suites run in parallel processes (go test ./...): picking a free
	// subnet and taking it is one step under a lock of the machine.
	unlock, err := lockMachine()
	if err != nil {
		return nil, err
	}
	defer unlock()
	for k := range subnets {
		n.Gateway4 = netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, byte(k), 1}), 24)
		n.Gateway6 = netip.PrefixFrom(netip.AddrFrom16([16]byte{0: 0xfd, 1: 0x99, 7: byte(k), 15: 1}), 64)
		if !addressInUse(n.Gateway4.Addr()) {
			break
		}
	}
	steps := [][]string{
		{"ip", "link", "add", n.Bridge, "type", "bridge"},
		{"ip", "addr", "add", n.Gateway4.String(), "dev", n.Bridge},
		{"ip", "-6", "addr", "add", n.Gateway6.String(), "dev", n.Bridge, "nodad"},
		{"ip", "link", "set", n.Bridge, "up"},
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return nil, errors.Join(err, n.Close())
		}
	}
	return n, nil
}

// lockMachine takes an exclusive lock shared by every process on the
// machine that creates networks, and returns its release.
func lockMachine() (func(), error) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "podnetwork-netnode.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the network lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking the network lock: %w", err)
	}
	// Closing the file releases the lock.
	return func() { _ = f.Close() }, nil
}

// addressInUse reports whether a host interface already has addr.
func addressInUse(addr netip.Addr) bool {
	out, err := exec.Command("ip", "-o", "addr", "show").Output()
	return err == nil && strings.Contains(string(out), " "+addr.String()+"/")
}

// Node is a network namespace wired to the bridge.
type Node struct {
	// Name is the Kubernetes node name.
	Name string
	// Netns is the network namespace's name.
	Netns string
	// IPv4 and IPv6 are the node's addresses on the bridge (its InternalIPs).
	IPv4, IPv6 netip.Addr
	// Interface is the node's interface on the bridge.
	Interface string

	hostVeth           string
	gateway4, gateway6 netip.Addr
}

// AddNode creates a namespace for node name with an interface on the bridge
// (eth0 unless iface says otherwise), addresses 198.18.0.(10+i) and
// fd99::(10+i), default routes through the bridge and forwarding on.
func (n *Network) AddNode(name, iface string) (*Node, error) {
	if iface == "" {
		iface = "eth0"
	}
	n.mu.Lock()
	i := n.next
	n.next++
	n.mu.Unlock()
	if i >= maxNodes {
		return nil, fmt.Errorf("network %s is full", n.Bridge)
	}
	g4, g6 := n.Gateway4.Addr().As4(), n.Gateway6.Addr().As16()
	g4[3], g6[15] = byte(10+i), byte(10+i)
	node := &Node{
		Name: name, Netns: fmt.Sprintf("%s%d", n.prefix, i), Interface: iface,
		IPv4: netip.AddrFrom4(g4), IPv6: netip.AddrFrom16(g6),
		hostVeth: fmt.Sprintf("%sv%d", n.prefix, i),
		gateway4: n.Gateway4.Addr(), gateway6: n.Gateway6.Addr(),
	}
	_ = run("ip", "netns", "del", node.Netns) // left over by a killed run
	_ = run("ip", "link", "del", node.hostVeth)
	ns := []string{"ip", "-n", node.Netns}
	steps := [][]string{
		{"ip", "netns", "add", node.Netns},
		{"ip", "link", "add", node.hostVeth, "type", "veth", "peer", "name", node.Interface, "netns", node.Netns},
		{"ip", "link", "set", node.hostVeth, "master", n.Bridge, "up"},
		// Keep IPv6 addresses when a link goes down, as IPv4 ones are
		// kept, so RenameInterface loses none.
		{"ip", "netns", "exec", node.Netns, "sysctl", "-qw", "net.ipv6.conf.all.keep_addr_on_down=1", "net.ipv6.conf.default.keep_addr_on_down=1"},
		append(ns, "link", "set", "lo", "up"),
		append(ns, "addr", "add", netip.PrefixFrom(node.IPv4, n.Gateway4.Bits()).String(), "dev", node.Interface),
		append(ns, "-6", "addr", "add", netip.PrefixFrom(node.IPv6, n.Gateway6.Bits()).String(), "dev", node.Interface, "nodad"),
		append(ns, "link", "set", node.Interface, "up"),
		{"ip", "netns", "exec", node.Netns, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"},
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return nil, errors.Join(err, node.remove())
		}
	}
	if err := node.routes(); err != nil {
		return nil, errors.Join(err, node.remove())
	}
	n.mu.Lock()
	n.nodes[name] = node
	n.mu.Unlock()
	return node, nil
}

// routes adds the default routes through the bridge.
func (node *Node) routes() error {
	ns := []string{"ip", "-n", node.Netns}
	for _, s := range [][]string{
		append(ns, "route", "replace", "default", "via", node.gateway4.String()),
		append(ns, "-6", "route", "replace", "default", "via", node.gateway6.String()),
	} {
		if err := run(s...); err != nil {
			return err
		}
	}
	return nil
}

// RenameInterface renames the node's interface on the bridge, as a changed
// NIC name after a reboot would, and restores its routes.
func (node *Node) RenameInterface(name string) error {
	ns := []string{"ip", "-n", node.Netns}
	for _, s := range [][]string{
		append(ns, "link", "set", node.Interface, "down"),
		append(ns, "link", "set", node.Interface, "name", name),
		append(ns, "link", "set", name, "up"),
	} {
		if err := run(s...); err != nil {
			return err
		}
	}
	node.Interface = name
	return node.routes()
}

// RemoveNode deletes the node's namespace and interfaces.
func (n *Network) RemoveNode(name string) error {
	n.mu.Lock()
	node := n.nodes[name]
	delete(n.nodes, name)
	n.mu.Unlock()
	if node == nil {
		return nil
	}
	return node.remove()
}

// Close removes every node and the bridge.
func (n *Network) Close() error {
	n.mu.Lock()
	nodes := n.nodes
	n.nodes = map[string]*Node{}
	n.mu.Unlock()
	var errs []error
	for _, node := range nodes {
		errs = append(errs, node.remove())
	}
	if err := run("ip", "link", "del", n.Bridge); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (node *Node) remove() error {
	var errs []error
	if err := run("ip", "netns", "del", node.Netns); err != nil && !strings.Contains(err.Error(), "No such file") {
		errs = append(errs, err)
	}
	// Deleting the namespace deletes the veth pair; this only catches a
	// pair whose peer never reached it.
	_ = run("ip", "link", "del", node.hostVeth)
	return errors.Join(errs...)
}

// Command returns a command that runs inside the node's namespace.
func (node *Node) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", node.Netns, name}, args...)...)
}

// Output runs a command inside the node's namespace and returns its
// standard output.
func (node *Node) Output(ctx context.Context, name string, args ...string) (string, error) {
	cmd := node.Command(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), node.Netns, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Node returns the node called name, or nil.
func (n *Network) Node(name string) *Node {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nodes[name]
}
