// Private to core/codegen: the TIR → LLVM IR translator shared by the
// expression, statement and function .cpp files, and the helpers that make
// target machines and run the optimiser. It includes LLVM headers, so nothing
// outside core/codegen may include it (codegen.h is the public face).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "tir/stmt.h"

namespace lathe::codegen::detail {

// Registers the native target, its assembly printer and parser, and the
// NVPTX target with its PTX printer, once.
void initialize_llvm();
std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target);
// Runs the new pass manager's default pipeline for target.opt_level.
void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, const Target& target);
// Floating-point options of the target machine (the JIT's as well as emission's).
llvm::TargetOptions target_options(const Target& target);
llvm::CodeGenOptLevel codegen_opt_level(const Target& target);

// A verified module of the given kernels, typed for the target machine's
// triple and data layout, optionally optimised.
struct BuiltModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};
BuiltModule build_module(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         bool optimize);
// The same with another code generator than the target kind's (the GPU
// simulator's, whose kernels are cuda TIR for the host `target`).
class CodeGenLLVM;
using CodeGenFactory = std::function<std::unique_ptr<CodeGenLLVM>(llvm::Module&)>;
BuiltModule build_module(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                         const CodeGenFactory& make, bool optimize);

// A module built for the host, JIT-linked: the address of each named
// function, whose code lives as long as `owner`.
struct LinkedFunctions {
  std::shared_ptr<JitModule> owner;
  std::vector<void*> addresses;
};
LinkedFunctions jit_link(BuiltModule built, const std::vector<std::string>& names);
// The same for a relocatable object emit_file made of such a module.
LinkedFunctions jit_link_object(const std::vector<char>& object,
                                const std::vector<std::string>& names);
// The module as a relocatable object or assembly, by its target machine.
std::vector<char> emit_file(BuiltModule& built, llvm::CodeGenFileType type);

// Facts about a pointer the generated code reads and writes through.
struct BufferFacts {
  int64_t alignment = 1;        // bytes, of the first element
  int64_t dereferenceable = 0;  // bytes known to be valid, 0 if unknown
  bool noalias = false;         // a kernel parameter or a fresh allocation
};

// Vector float32 exp, erf and tanh as inline SIMD code, without libm calls
// (vector_math.cpp): a call per lane is slow, and it clobbers every vector
// register, so a loop around one spills whatever it keeps in them.
llvm::Value* emit_vector_expf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_erff(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_tanhf(llvm::IRBuilder<>& builder, llvm::Value* x);
// log, sin and cos the same way, for targets without libm (NVPTX); tan, the
// inverse trigonometric and the hyperbolic functions (trig_math.cpp).
llvm::Value* emit_vector_logf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_sinf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_cosf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_tanf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_asinf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_acosf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_atanf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_sinhf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_coshf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_asinhf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_acoshf(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_atanhf(llvm::IRBuilder<>& builder, llvm::Value* x);
// Float64 exp and log (double_math.cpp).
llvm::Value* emit_vector_exp_f64(llvm::IRBuilder<>& builder, llvm::Value* x);
llvm::Value* emit_vector_log_f64(llvm::IRBuilder<>& builder, llvm::Value* x);
// pow from the exp and log of x's element type, float32 or float64.
llvm::Value* emit_vector_pow(llvm::IRBuilder<>& builder, llvm::Value* x, llvm::Value* y);
// The math of a target without libm (gpu_math.cpp) on scalars or vectors:
// float32 exp, log, pow, tanh, erf, sigmoid, sin, cos, tan, asin, acos,
// atan, sinh, cosh, asinh, acosh, atanh; float64 exp, log, pow, sigmoid.
// nullptr for an op (or type) it does not cover.
llvm::Value* emit_polynomial_math(llvm::IRBuilder<>& builder, te::Intrinsic op,
                                  const std::vector<llvm::Value*>& args);

// Translates PrimFuncs into one LLVM module: expressions, stores, serial,
// unrolled and vectorised loops, branches, lets and stack allocations, which
// mean the same on every target. What differs by target kind is behind the
// virtual hooks below, implemented by CodeGenCPU (codegen_cpu.cpp: packed
// entry points, the thread pool, lathe_alloc, libm, prefetch) and
// CodeGenNVPTX (codegen_nvptx.cpp: kernels, thread indices, shared memory,
// barriers, polynomial math) — TVM's codegen_llvm → codegen_cpu / codegen_nvptx.
class CodeGenLLVM {
 public:
  CodeGenLLVM(llvm::Module& module, const Target& target);
  virtual ~CodeGenLLVM() = default;
  CodeGenLLVM(const CodeGenLLVM&) = delete;
  CodeGenLLVM& operator=(const CodeGenLLVM&) = delete;
  // Adds the PrimFunc's entry point(s) to the module.
  virtual void add_function(const tir::PrimFunc& func) = 0;

 protected:
  // Functions for `target` that run on another machine's processor (`cpu`,
  // `features`): the GPU simulator's kernels, cuda TIR compiled for the host.
  CodeGenLLVM(llvm::Module& module, const Target& target, std::string cpu, std::string features);

  // ---- hooks of the target kinds
  // A loop with ForKind::Parallel / ForKind::ThreadBinding.
  virtual void emit_parallel_loop(const tir::ForNode* n) = 0;
  virtual void emit_thread_binding(const tir::ForNode* n) = 0;
  virtual void emit_allocate(const tir::AllocateNode* n) = 0;
  // The "storage_sync" attribute (tir/transform/inject_storage_sync.h).
  virtual void emit_barrier() = 0;
  // The "thread_allreduce" attribute (tir/transform/thread_allreduce.h).
  virtual void emit_thread_allreduce(const tir::AttrStmtNode* n) = 0;
  virtual llvm::Value* emit_prefetch(const te::CallNode* n) = 0;
  // A tensorized region's call (te/tensor_intrinsic.h).
  virtual llvm::Value* emit_tensor_intrinsic(const te::CallNode* n) = 0;
  // A math function without an LLVM instruction (tan, asin ...), lane by lane.
  virtual llvm::Value* emit_libm_per_lane(const char* float_name, const char* double_name,
                                          llvm::Value* x) = 0;
  // A kind's own code for an intrinsic, tried before the common one;
  // nullptr: use the common one.
  virtual llvm::Value* emit_target_math(te::Intrinsic op, te::DataType t,
                                        const std::vector<llvm::Value*>& args);
  // int(round(x)), round half to even, as one conversion where the kind has
  // one; nullptr: the rounding and the truncating conversion.
  virtual llvm::Value* emit_round_to_int(const te::Expr& x, te::DataType to);
  // cast<to>(clamp(value, min of to, max of to)) of an int32 vector, `to` an
  // 8-bit integer (a requantization's saturation), as the kind's saturating
  // narrowing of the unclamped value; nullptr: the clamp and the truncation.
  virtual llvm::Value* emit_saturating_narrow(const te::Expr& value, te::DataType to);

  // ---- types and small helpers (codegen_expr.cpp)
  llvm::Type* llvm_type(te::DataType t) const;
  // How a value of type t sits in memory: bool as i8, everything else as is.
  llvm::Type* memory_type(te::DataType t) const;
  int64_t memory_bytes(te::DataType t) const;
  llvm::Value* to_index(llvm::Value* v, te::DataType t);  // to i64 (or <L x i64>)
  llvm::Value* cast_value(llvm::Value* v, te::DataType from, te::DataType to);
  llvm::Value* bfloat16_to_float(llvm::Value* v, int lanes);
  llvm::Value* float_to_bfloat16(llvm::Value* v, int lanes);
  llvm::Value* splat_to(llvm::Value* v, int lanes);
  [[noreturn]] void fail_at(const std::string& message) const;

  // ---- expressions (codegen_expr.cpp)
  llvm::Value* emit_expr(const te::Expr& e);
  llvm::Value* emit_binary(const te::BinaryNode* n);
  llvm::Value* emit_floor_div_mod(bool is_div, llvm::Value* a, llvm::Value* b, const te::Expr& ea,
                                  const te::Expr& eb);
  llvm::Value* emit_select(const te::SelectNode* n);
  llvm::Value* emit_call(const te::CallNode* n);
  llvm::Value* emit_load(const te::LoadNode* n);
  llvm::Value* emit_window_load(const te::LoadNode* n);
  llvm::Value* emit_ramp(const te::RampNode* n);
  llvm::Value* buffer_pointer(const te::Var& buffer) const;
  // Alignment in bytes of buffer + index * element_bytes, from the buffer's
  // alignment and what is known to divide the index.
  int64_t access_alignment(const te::Var& buffer, const te::Expr& index, int64_t element_bytes);
  // A divisor known for every value e takes (0: e is always 0).
  int64_t known_multiple(const te::Expr& e) const;
  bool non_negative(const te::Expr& e) const;

  // ---- statements (codegen_stmt.cpp)
  void emit_stmt(const tir::Stmt& s);
  void emit_for(const tir::ForNode* n);
  // A serial, unrolled or vectorised loop (a parallel one, run serially).
  void emit_loop(const tir::ForNode* n);
  void emit_serial_loop(const te::Var& loop_var, llvm::Value* begin, llvm::Value* end,
                        const tir::Stmt& body, llvm::MDNode* loop_hint);
  void emit_store(const tir::StoreNode* n);
  // The allocation as an entry-block alloca of `bytes` with lifetime markers
  // around its body.
  void emit_stack_allocate(const tir::AllocateNode* n, int64_t bytes);
  // The element count of a constant-size allocation, -1 when it has a
  // non-constant extent; refuses negative and absurd sizes.
  int64_t constant_allocation_count(const tir::AllocateNode* n) const;
  void emit_if(const tir::IfThenElseNode* n);
  // Puts var in scope with what is known about its definition; returns the
  // value it shadows (nullptr if none), which unbind puts back.
  llvm::Value* bind(const te::Var& var, llvm::Value* value, const te::Expr& definition);
  void unbind(const te::Var& var, llvm::Value* shadowed);

  // ---- functions (codegen_function.cpp)
  llvm::Function* create_function(const std::string& name, llvm::FunctionType* type,
                                  llvm::GlobalValue::LinkageTypes linkage);
  void add_buffer_param_attributes(llvm::Function* f, unsigned index, const BufferFacts& facts);
  llvm::AllocaInst* entry_alloca(llvm::Type* type, int64_t alignment, const std::string& name);
  // Starts a kernel: checks its name and body, clears the per-kernel state.
  void begin_kernel(const tir::PrimFunc& func);
  // What is known of parameter `i`'s buffer (aligned, noalias, its size).
  BufferFacts param_facts(const tir::PrimFunc& func, size_t i) const;

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  const Target target_;
  const std::string cpu_, features_;  // resolved once: every function carries them
  llvm::IRBuilder<> builder_;
  llvm::Function* function_ = nullptr;  // the function being filled
  std::string kernel_name_;             // for error messages and outlined names
  // Lane mask of the vector Select branch being emitted: loads under it are
  // masked so that a guarded out-of-bounds lane (padding) never touches memory.
  llvm::Value* lane_mask_ = nullptr;

  te::VarMap<llvm::Value*> values_;      // variables in scope
  te::VarMap<BufferFacts> buffers_;      // pointer variables with known facts
  te::VarMap<int64_t> known_multiples_;  // let-bound integers with a known divisor
  te::VarMap<bool> non_negative_vars_;   // loop and let variables known >= 0
};

// The CPU (llvm kind): for each PrimFunc `f` it emits
//   void f(void** args)                  external: the packed entry point
//   void f_compute_(ptr A, ptr B, ...)   internal, noinline, noalias/align 64 params
//   void f_parallel_N(i64, i64, ptr)     internal: a parallel loop's body for the runtime
class CodeGenCPU final : public CodeGenLLVM {
 public:
  using CodeGenLLVM::CodeGenLLVM;
  void add_function(const tir::PrimFunc& func) override;

 private:
  void emit_parallel_loop(const tir::ForNode* n) override;
  void emit_thread_binding(const tir::ForNode* n) override;
  void emit_allocate(const tir::AllocateNode* n) override;
  void emit_barrier() override;
  void emit_thread_allreduce(const tir::AttrStmtNode* n) override;
  llvm::Value* emit_prefetch(const te::CallNode* n) override;
  // The x86 implementations (tensor_intrinsic_x86.cpp).
  llvm::Value* emit_tensor_intrinsic(const te::CallNode* n) override;
  llvm::Value* emit_libm_per_lane(const char* float_name, const char* double_name,
                                  llvm::Value* x) override;
  llvm::Value* emit_round_to_int(const te::Expr& x, te::DataType to) override;
  // x86's pack instructions (saturating_narrow_x86.cpp).
  llvm::Value* emit_saturating_narrow(const te::Expr& value, te::DataType to) override;

  void emit_parallel_for(const tir::ForNode* n);
  llvm::FunctionCallee runtime_function(const char* name);

  int parallel_count_ = 0;
  bool in_parallel_ = false;  // inside an outlined parallel body: nested loops run serially
};

// The code generator for a target's kind (CodeGenCPU, CodeGenNVPTX).
std::unique_ptr<CodeGenLLVM> make_codegen(llvm::Module& module, const Target& target);

}  // namespace lathe::codegen::detail
