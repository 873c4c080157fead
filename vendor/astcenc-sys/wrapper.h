#include <astcenc.h>
