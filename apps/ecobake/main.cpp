#include <cstdio>
int main() { std::puts("ecobake: not yet"); return 1; }
