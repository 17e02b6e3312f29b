#pragma once
#include <math.h>
#define CUDART_INF_F INFINITY
#define CUDART_NAN ((double)NAN)
