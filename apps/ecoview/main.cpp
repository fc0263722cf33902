#include <cstdio>
int main() { std::puts("ecoview: not yet"); return 1; }
