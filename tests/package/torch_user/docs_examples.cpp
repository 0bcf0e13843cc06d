// The examples on the pages of torch's documentation, as a torch user first writes them against
// the installed package: F.cross_entropy, nn.CrossEntropyLoss with an ignored class and label
// smoothing over [N, C, d], nn.MSELoss, nn.Flatten, torch.pow with a tensor exponent,
// nn.MultiheadAttention with the default [L, N, E] layout, and nn.TransformerEncoder with a
// final LayerNorm; each value and gradient is held to Python torch's within 1e-12.
//
// Run as `docs_examples reference/docs_examples.state`: the inputs and the modules' starting
// weights are torch's (tests/reference/make_torch_user_reference.py).
#include <iostream>

#include <litgrad/litgrad.hpp>

#include "against_torch.hpp"

using namespace litgrad;

int main(int argc, char** argv) {
  const StateDict ref = against_torch::reference(argc, argv);
  against_torch::Comparison torch;
  const auto leaf = [&](const std::string& name) { return ref.at("data." + name).clone().requires_grad_(); };
  const auto expected = [&](const std::string& name) { return ref.at("expected." + name); };

  {  // F.cross_entropy: input = torch.randn(3, 5, requires_grad=True); target = torch.randint(5, (3,))
    const Tensor input = leaf("ce_input");
    const Tensor loss = F::cross_entropy(input, ref.at("data.ce_target"));
    loss.backward();
    torch.check("F::cross_entropy", loss, expected("ce_loss"));
    torch.check("its gradient", input.grad(), expected("ce_grad"));
  }
  {  // nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1) over [N, C, d]
    const Tensor input = leaf("ce2_input");
    CrossEntropyOptions options;
    options.ignore_index = 2, options.label_smoothing = 0.1;
    const nn::CrossEntropyLoss criterion(options);
    const Tensor loss = criterion(input, ref.at("data.ce2_target"));
    loss.backward();
    torch.check("nn::CrossEntropyLoss over [N, C, d]", loss, expected("ce2_loss"));
    torch.check("its gradient", input.grad(), expected("ce2_grad"));
  }
  {  // nn.MSELoss()
    const Tensor input = leaf("mse_input");
    const Tensor loss = nn::MSELoss()(input, ref.at("data.mse_target"));
    loss.backward();
    torch.check("nn::MSELoss", loss, expected("mse_loss"));
    torch.check("its gradient", input.grad(), expected("mse_grad"));
  }
  {  // nn.Flatten(): [N, 1, 5, 5] -> [N, 25]; nn.Flatten(0, 2)
    const Tensor input = ref.at("data.flatten_input");
    torch.check("nn::Flatten()", nn::Flatten()(input), expected("flatten"), 0.0);
    torch.check("nn::Flatten(0, 2)", nn::Flatten(0, 2)(input), expected("flatten_0_2"), 0.0);
  }
  {  // torch.pow(a, b) and torch.pow(2, b) with tensor exponents
    const Tensor base = leaf("pow_base"), exponent = leaf("pow_exponent");
    const Tensor y = pow(base, exponent) + pow(2.0, exponent);
    y.sum().backward();
    torch.check("pow with tensor exponents", y, expected("pow"));
    torch.check("its gradient for the base", base.grad(), expected("pow_grad_base"));
    torch.check("its gradient for the exponent", exponent.grad(), expected("pow_grad_exponent"));
  }
  {  // multihead_attn = nn.MultiheadAttention(embed_dim, num_heads)
     // attn_output, attn_output_weights = multihead_attn(query, key, value)
    nn::MultiheadAttention multihead_attn(8, 2);
    multihead_attn.load_state_dict(ref.sub("init.mha"));
    const Tensor query = leaf("mha_query"), key = leaf("mha_key");
    const auto [attn_output, attn_output_weights] = multihead_attn(query, key, key);
    (attn_output.pow(2).sum() + attn_output_weights.pow(2).sum()).backward();
    torch.check("nn::MultiheadAttention's output", attn_output, expected("mha_output"));
    torch.check("its weights, averaged over heads", attn_output_weights, expected("mha_weights"));
    torch.check("the gradient for the query", query.grad(), expected("mha_grad_query"));
    torch.check("the gradient for the key and value", key.grad(), expected("mha_grad_key"));
    torch.check("the gradient for in_proj_weight", multihead_attn.parameter("in_proj_weight").grad(),
                expected("mha_grad_in_proj_weight"));
  }
  {  // encoder_layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
     // transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers=2, norm=nn.LayerNorm(8))
    nn::TransformerEncoderLayerOptions options;
    options.dim_feedforward = 16, options.dropout = 0.0;
    const nn::TransformerEncoderLayer encoder_layer(8, 2, options);
    nn::TransformerEncoder transformer_encoder(encoder_layer, 2, nn::LayerNorm(8));
    transformer_encoder.load_state_dict(ref.sub("init.encoder"));
    const Tensor src = leaf("encoder_src");
    const Tensor out = transformer_encoder(src);
    out.pow(3).sum().backward();  // after the final norm, a sum of squares hardly moves
    torch.check("nn::TransformerEncoder with a final norm", out, expected("encoder_output"));
    torch.check("its gradient for src", src.grad(), expected("encoder_grad_src"));
    torch.check("the gradient for the final norm's weight", transformer_encoder.parameter("norm.weight").grad(),
                expected("encoder_grad_norm_weight"));
  }
  std::cout << "docs_examples: " << torch.failures() << " of the documentation's results differ from torch's\n";
  return torch.failures();
}
