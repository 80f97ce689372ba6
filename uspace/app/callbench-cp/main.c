/*
 * callbench-cp: callbench (uspace/app/callbench) built with
 * -finstrument-functions (the Makefile's UPROG_CPROF), so that `bench
 * cprof` can compare the two: the same source, with the call profiler's
 * hooks around every call.
 */
#define CALLBENCH_NAME "callbench-cp"
#include "../callbench/main.c"
