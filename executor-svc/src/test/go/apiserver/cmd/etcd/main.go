// Command etcd is etcd's own server (go.etcd.io/etcd/server/v3/etcdmain) at the version that
// k8s.io/kubernetes requires, built from the module proxy for the executor's real-API tests.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
