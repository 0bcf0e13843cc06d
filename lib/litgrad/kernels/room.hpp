#pragma once
// Two rooms for arithmetic. Every loop over a tensor's raw elements lives in kernels/, and most
// kernels have two implementations behind one interface (kernels/*.hpp):
//  - plain (kernels/plain/): fixed-order loops a reader can check by eye, on plain memory;
//  - fast (kernels/fast/): the same arithmetic, in the same order, with SIMD, Eigen's matrix
//    products, fused attention and a block cache.
// tests/test_kernels.cpp holds every fast kernel to its plain twin bit for bit, over random
// shapes. The library runs the fast room unless built with -DLITGRAD_FAST=OFF, which runs the
// whole library, its tests and the book on the plain kernels (and needs no Eigen).
// A kernel with nothing to gain from a second version has one, which both rooms use
// (kernels/copy.hpp). Only the library's own .cpp files (and the kernels' tests) include this.

#ifndef LITGRAD_FAST
#error "LITGRAD_FAST must be defined to 0 or 1 by the build (see lib/CMakeLists.txt)"
#endif

namespace litgrad::kernels {
namespace plain {}
namespace fast {}
#if LITGRAD_FAST
namespace room = fast;  // the room the library runs
#else
namespace room = plain;
#endif
}  // namespace litgrad::kernels
