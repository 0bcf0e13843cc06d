#pragma once
/// \file litgrad.hpp
/// \brief Everything in litgrad, for readers in a hurry. Each header below is one idea.

#include "litgrad/attention.hpp"               // scaled_dot_product_attention, generate_square_subsequent_mask
#include "litgrad/autograd.hpp"                // NoGradGuard, autograd::grad
#include "litgrad/bpe.hpp"                     // BPETokenizer, pretokenize
#include "litgrad/dropout.hpp"                 // dropout
#include "litgrad/elementwise.hpp"             // + - * /, exp, log, tanh, sqrt, clamp, gelu, ..., where, masked_fill
#include "litgrad/error.hpp"                   // ShapeError, ValueError, IndexError, AutogradError
#include "litgrad/flop_counter.hpp"            // FlopCounter
#include "litgrad/function.hpp"                // autograd::Function, custom operations
#include "litgrad/gradcheck.hpp"               // gradcheck
#include "litgrad/indexing.hpp"                // select, slice, gather, index_select, cat, stack, split, tril, one_hot
#include "litgrad/loss.hpp"                    // mse_loss, cross_entropy, nll_loss, binary_cross_entropy_with_logits
#include "litgrad/matmul.hpp"                  // matmul
#include "litgrad/nn/activation.hpp"           // nn::ReLU, nn::Tanh, nn::Sigmoid, nn::GELU, nn::Dropout
#include "litgrad/nn/container.hpp"            // nn::Sequential, nn::ModuleList
#include "litgrad/nn/embedding.hpp"            // nn::Embedding
#include "litgrad/nn/init.hpp"                 // nn::init::uniform_, normal_, constant_, xavier_uniform_
#include "litgrad/nn/layer_norm.hpp"           // nn::LayerNorm
#include "litgrad/nn/linear.hpp"               // nn::Linear
#include "litgrad/nn/module.hpp"               // nn::Module
#include "litgrad/nn/multihead_attention.hpp"  // nn::MultiheadAttention
#include "litgrad/nn/serialize.hpp"            // nn::save, nn::load
#include "litgrad/nn/transformer.hpp"          // nn::TransformerEncoderLayer
#include "litgrad/nn/utils.hpp"                // nn::utils::clip_grad_norm_
#include "litgrad/optim/adam.hpp"              // optim::Adam, optim::AdamW
#include "litgrad/optim/lr_scheduler.hpp"      // optim::lr_scheduler::LambdaLR, CosineAnnealingLR
#include "litgrad/optim/sgd.hpp"               // optim::SGD
#include "litgrad/positional_encoding.hpp"     // ramp and sinusoidal encodings
#include "litgrad/random.hpp"                  // Generator, rand, randn, multinomial, manual_seed
#include "litgrad/reduction.hpp"               // sum, mean, max, min, argmax, var, std, norm, topk
#include "litgrad/reshaping.hpp"   // reshape, permute, transpose, squeeze, unsqueeze, flatten, expand, repeat
#include "litgrad/sampling.hpp"    // sample, SamplingOptions, top_k_filter, top_p_filter
#include "litgrad/shape.hpp"       // Shape, broadcast_shapes
#include "litgrad/softmax.hpp"     // softmax, log_softmax, logsumexp
#include "litgrad/state_dict.hpp"  // StateDict, save, load
#include "litgrad/tensor.hpp"      // Tensor, tensor, zeros, ones, linspace, ...
#include "litgrad/threads.hpp"     // set_num_threads, get_num_threads
