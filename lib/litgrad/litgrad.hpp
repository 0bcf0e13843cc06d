#pragma once
/// \file litgrad.hpp
/// \brief Everything in litgrad, for readers in a hurry. Each header below is one idea.

#include "litgrad/attention.hpp"    // scaled_dot_product_attention, generate_square_subsequent_mask
#include "litgrad/autograd.hpp"     // NoGradGuard
#include "litgrad/dropout.hpp"      // dropout
#include "litgrad/elementwise.hpp"  // + - * /, exp, log, tanh, ..., where, masked_fill
#include "litgrad/error.hpp"        // ShapeError, ValueError, IndexError, AutogradError
#include "litgrad/gradcheck.hpp"    // gradcheck
#include "litgrad/indexing.hpp"     // select, slice, gather, cat, stack
#include "litgrad/loss.hpp"         // mse_loss, cross_entropy
#include "litgrad/matmul.hpp"       // matmul
#include "litgrad/nn/init.hpp"      // nn::init::uniform_, xavier_uniform_
#include "litgrad/nn/linear.hpp"    // nn::Linear
#include "litgrad/nn/module.hpp"    // nn::Module
#include "litgrad/nn/multihead_attention.hpp"  // nn::MultiheadAttention
#include "litgrad/optim/adam.hpp"   // optim::Adam
#include "litgrad/optim/sgd.hpp"    // optim::SGD
#include "litgrad/positional_encoding.hpp"  // ramp and sinusoidal encodings
#include "litgrad/random.hpp"       // Generator, rand, randn, manual_seed
#include "litgrad/reduction.hpp"    // sum, mean, max
#include "litgrad/reshaping.hpp"    // reshape, permute, transpose, squeeze, unsqueeze
#include "litgrad/shape.hpp"        // Shape, broadcast_shapes
#include "litgrad/softmax.hpp"      // softmax, log_softmax
#include "litgrad/tensor.hpp"       // Tensor, tensor, zeros, ones, ...
