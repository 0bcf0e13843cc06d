#pragma once
/// \file litgrad.hpp
/// \brief Everything in litgrad, for readers in a hurry. Each header below is one idea; the
/// folders are the library's floors, each built only on those listed before it.

// base/: what every floor uses.
#include "litgrad/base/error.hpp"         // ShapeError, ValueError, IndexError, AutogradError
#include "litgrad/base/flop_counter.hpp"  // FlopCounter
#include "litgrad/base/shape.hpp"         // Shape, broadcast_shapes

// core/: tensors, recording, generators, files. (kernels/, under it, is the library's own.)
#include "litgrad/core/grad_mode.hpp"   // NoGradGuard, EnableGradGuard, is_grad_enabled
#include "litgrad/core/op.hpp"          // Op, Twice: what the library knows of an operation it records
#include "litgrad/core/random.hpp"      // Generator, rand, randn, multinomial, manual_seed
#include "litgrad/core/state_dict.hpp"  // StateDict, save, load
#include "litgrad/core/tensor.hpp"      // Tensor, tensor, zeros, ones, linspace, ...
#include "litgrad/core/threads.hpp"     // set_num_threads, get_num_threads

// ops/: the operations, each with its backward.
#include "litgrad/ops/attention.hpp"    // scaled_dot_product_attention, generate_square_subsequent_mask
#include "litgrad/ops/dropout.hpp"      // dropout
#include "litgrad/ops/elementwise.hpp"  // + - * /, exp, log, tanh, sqrt, clamp, gelu, ..., where, masked_fill
#include "litgrad/ops/indexing.hpp"     // select, slice, gather, index_select, cat, stack, split, tril, one_hot
#include "litgrad/ops/loss.hpp"         // mse_loss, cross_entropy, nll_loss, binary_cross_entropy_with_logits
#include "litgrad/ops/matmul.hpp"       // matmul
#include "litgrad/ops/reduction.hpp"    // sum, mean, max, min, argmax, var, std, norm, topk
#include "litgrad/ops/registry.hpp"     // every operation recorded for the backward pass: op::matmul, ...
#include "litgrad/ops/reshaping.hpp"    // reshape, permute, transpose, squeeze, unsqueeze, flatten, expand, repeat
#include "litgrad/ops/softmax.hpp"      // softmax, log_softmax, logsumexp

// autograd/: the backward pass and what is built on it.
#include "litgrad/autograd/autograd.hpp"   // autograd::grad
#include "litgrad/autograd/function.hpp"   // autograd::Function, custom operations
#include "litgrad/autograd/gradcheck.hpp"  // gradcheck
#include "litgrad/autograd/graph.hpp"      // autograd::recorded_graph, ScopeCapture: the graph as data

// nn/ and optim/: models and their training.
#include "litgrad/nn/activation.hpp"           // nn::ReLU, nn::Tanh, nn::Sigmoid, nn::GELU, nn::Dropout
#include "litgrad/nn/container.hpp"            // nn::Sequential, nn::ModuleList, nn::ModuleDict
#include "litgrad/nn/embedding.hpp"            // nn::Embedding
#include "litgrad/nn/flatten.hpp"              // nn::Flatten
#include "litgrad/nn/functional.hpp"           // nn::functional, alias F: F::cross_entropy, F::gelu, ...
#include "litgrad/nn/init.hpp"                 // nn::init::uniform_, normal_, constant_, xavier_uniform_
#include "litgrad/nn/layer_norm.hpp"           // nn::LayerNorm
#include "litgrad/nn/linear.hpp"               // nn::Linear
#include "litgrad/nn/loss.hpp"                 // nn::MSELoss, nn::CrossEntropyLoss, nn::NLLLoss, ...
#include "litgrad/nn/module.hpp"               // nn::Module
#include "litgrad/nn/multihead_attention.hpp"  // nn::MultiheadAttention
#include "litgrad/nn/positional_encoding.hpp"  // ramp and sinusoidal encodings
#include "litgrad/nn/serialize.hpp"            // nn::save, nn::load
#include "litgrad/nn/transformer.hpp"          // nn::TransformerEncoderLayer
#include "litgrad/nn/utils.hpp"                // nn::utils::clip_grad_norm_
#include "litgrad/optim/adam.hpp"              // optim::Adam, optim::AdamW
#include "litgrad/optim/lr_scheduler.hpp"      // optim::lr_scheduler::LambdaLR, CosineAnnealingLR
#include "litgrad/optim/rmsprop.hpp"           // optim::RMSprop
#include "litgrad/optim/sgd.hpp"               // optim::SGD

// text/: from text to tokens and back.
#include "litgrad/text/bpe.hpp"       // BPETokenizer, pretokenize
#include "litgrad/text/sampling.hpp"  // sample, SamplingOptions, top_k_filter, top_p_filter
