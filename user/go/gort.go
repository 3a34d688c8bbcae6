// user/go/gort.go: Go's runtime on the kernel (threads for its Ms, futexes, signals for
// preemption, epoll for its netpoller, timers), as KTAP; built with the Debian Go toolchain,
// static (CGO_ENABLED=0), and run on both kernels.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

var failed = 0
var n = 0

func check(name string, ok bool, detail string) {
	n++
	if ok {
		fmt.Printf("ok %d %s\n", n, name)
	} else {
		failed++
		fmt.Printf("# %s\nnot ok %d %s\n", detail, n, name)
	}
}

// Goroutines on several threads (GOMAXPROCS 4 whatever the CPU count) each sum their part.
func goroutinesSum() int {
	var wg sync.WaitGroup
	parts := make([]int, 16)
	for i := range parts {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			s := 0
			for j := 0; j < 20000; j++ {
				s += (j + k) % 7
			}
			parts[k] = s
		}(i)
	}
	wg.Wait()
	total := 0
	for _, p := range parts {
		total += p
	}
	return total
}

func main() {
	runtime.GOMAXPROCS(4)
	fmt.Println("KTAP version 1")
	fmt.Println("1..4")

	total := goroutinesSum()
	want := 0
	for k := 0; k < 16; k++ {
		for j := 0; j < 20000; j++ {
			want += (j + k) % 7
		}
	}
	check("goroutines_on_threads", total == want, fmt.Sprintf("sum %d, expected %d", total, want))

	ch := make(chan int)
	go func() {
		for i := 0; i < 1000; i++ {
			ch <- i
		}
		close(ch)
	}()
	got := 0
	for v := range ch {
		got += v
	}
	check("channel_ping_pong", got == 999*1000/2, fmt.Sprintf("got %d", got))

	start := time.Now()
	timer := time.NewTimer(20 * time.Millisecond)
	<-timer.C
	el := time.Since(start)
	check("timer_fires", el >= 20*time.Millisecond && el < 5*time.Second, fmt.Sprintf("elapsed %v", el))

	f, err := os.CreateTemp("/tmp", "gort")
	ok := err == nil
	if ok {
		_, err = f.WriteString("go on pmuos\n")
		ok = err == nil && f.Close() == nil
		data, err2 := os.ReadFile(f.Name())
		ok = ok && err2 == nil && string(data) == "go on pmuos\n" && os.Remove(f.Name()) == nil
	}
	check("files", ok, fmt.Sprintf("%v", err))

	if failed > 0 {
		os.Exit(1)
	}
}
