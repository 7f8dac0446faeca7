// shop is the traced C++ program of the C++ uprobe tests (cpp_test.go):
// overloads in a namespace, a method, a plain function and one with C
// linkage, each called once, in this order; then it sleeps, so that its
// addresses can be symbolized until the tracer ends it.
#include <unistd.h>

namespace shop {
struct Cart {
	int items;
	int add(int n);
};
int __attribute__((noinline)) Cart::add(int n) { return items += n; }
int __attribute__((noinline)) price(int qty) { return qty * 3; }
int __attribute__((noinline)) price(int qty, int each) { return qty * each; }
} // namespace shop

int __attribute__((noinline)) total(int a) { return a + 1; }
extern "C" int __attribute__((noinline)) receipt(int a) { return a - 1; }

int main() {
	shop::Cart cart{0};
	int sum = shop::price(2) + shop::price(3, 4) + cart.add(5) + total(6) + receipt(7);
	sleep(30);
	return sum == 36 ? 0 : 1;
}
