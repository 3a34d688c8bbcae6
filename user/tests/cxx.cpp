// user/tests/cxx.cpp: a C++ program built with g++ -static (glibc): iostream, std::thread with a
// mutex and a condition variable, an exception thrown and caught; KTAP by hand (the KTAP library
// is C for musl).
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static int failed, number;

static void check(bool ok, const std::string &name)
{
	std::cout << (ok ? "ok " : "not ok ") << ++number << " " << name << std::endl;
	failed += !ok;
}

int main()
{
	std::cout << "KTAP version 1\n1..4" << std::endl;

	std::mutex m;
	long sum = 0;
	std::vector<std::thread> threads;
	for (int i = 1; i <= 4; i++)
		threads.emplace_back([&, i] {
			for (int k = 0; k < 1000; k++) {
				std::lock_guard<std::mutex> g(m);
				sum += i;
			}
		});
	for (auto &t : threads)
		t.join();
	check(sum == 10000, "threads_add_under_a_mutex");

	std::condition_variable cv;
	bool ready = false, seen = false;
	std::thread waiter([&] {
		std::unique_lock<std::mutex> l(m);
		cv.wait(l, [&] { return ready; });
		seen = true;
	});
	{
		std::lock_guard<std::mutex> g(m);
		ready = true;
	}
	cv.notify_one();
	waiter.join();
	check(seen, "condition_variable_wakes");

	std::string what;
	try {
		throw std::runtime_error("boom");
	} catch (const std::exception &e) {
		what = e.what();
	}
	check(what == "boom", "exception_caught");

	std::thread::id main_id = std::this_thread::get_id(), other_id;
	std::thread t([&] { other_id = std::this_thread::get_id(); });
	t.join();
	check(other_id != main_id, "threads_have_their_own_ids");
	return failed ? 1 : 0;
}
