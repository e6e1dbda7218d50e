# frozen_string_literal: true

# asmspy scoped tracing for Ruby: Fiddle (stdlib) over libasmspy's
# asmspy/scope.h. No compiled extension: Fiddle is part of every Ruby >= 2.0,
# so `require "asmspy"` needs no compiler, no ruby-dev and no gem build step.
#
#   require "fiddle"
#   require "asmspy"
#   lib  = Fiddle::Handle.new("./libscope_victim.so")
#   work = Fiddle::Function.new(lib["work"], [Fiddle::TYPE_LONG], Fiddle::TYPE_LONG)
#   tr   = Asmspy::HwTrace.new
#   r    = tr.scope(work) { work.call(3) }     # region: work's extent
#   puts "#{r.insn_count} insns, tier #{r.tier}"; r.value  # => work(3)
#
# code: a Fiddle::Function / Fiddle::Pointer / Integer address (the extent
# of the symbol covering it), an [address, length] pair (exactly that
# range), or nil (the whole window: everything the thread runs, the Ruby VM
# included -- faithful but noisy). The scope is named after the caller's
# file:line (caller_locations). Capture follows the calling OS thread.
#
# Library lookup: $ASMSPY_LIB (a path: the build tree), then libasmspy.so.0
# and libasmspy.so through the dynamic loader. When none loads, every scope
# is a recorded no-op (tier NONE, the reason says why): the block still runs.
require "fiddle"

module Asmspy
  # flag values mirror include/asmspy/scope.h
  QUIET = 1
  STRONG = 2   # ask for the STRONG tier (every branch in hardware) directly
  CEILING = 4  # ask for the CEILING tier (sampled branch edges) directly
  INTEL_PT = STRONG # the names of the same bits from when each tier had one backend
  AMD_LBR = CEILING

  # Explicit backend choice (the seed's HwBackend): Auto = the ladder
  # (STRONG, then WEAK); IntelPt / AmdLbr ask for that tier directly and
  # self-skip (tier NONE + reason) where the silicon or plugin is missing.
  module HwBackend
    Auto = 0
    IntelPt = STRONG
    AmdLbr = CEILING
  end

  VOIDP = Fiddle::TYPE_VOIDP
  SIZE_T = Fiddle::TYPE_SIZE_T

  class << self
    attr_reader :load_error, :library_path

    def loaded?
      !@fn.nil?
    end

    # Fiddle::Function for each scope.h entry point; need_gvl: the calls are
    # short and releasing the GVL would add the Ruby VM's GVL hand-off to
    # every whole-window capture.
    def _fn(name)
      @fn[name]
    end

    private

    def _load
      errors = []
      [ENV["ASMSPY_LIB"], "libasmspy.so.0", "libasmspy.so"].each do |cand|
        next if cand.nil? || cand.empty?
        begin
          h = Fiddle::Handle.new(cand)
          _bind(h)
          @handle = h
          @library_path = cand
          return
        rescue Fiddle::DLError => e
          errors << "#{cand}: #{e.message}"
        end
      end
      @fn = nil
      @load_error = "libasmspy not loaded (#{errors.join('; ')})"
    end

    def _bind(h)
      f = lambda do |sym, args, ret|
        Fiddle::Function.new(h[sym], args, ret, need_gvl: true)
      end
      @fn = {
        # the name as a C string: TYPE_CONST_STRING guarantees the terminating NUL
        begin: f.call("asmspy_scope_begin", [Fiddle::TYPE_CONST_STRING, VOIDP, SIZE_T, -Fiddle::TYPE_INT],
                      VOIDP),
        end: f.call("asmspy_scope_end", [VOIDP], Fiddle::TYPE_INT),
        free: f.call("asmspy_scope_free", [VOIDP], Fiddle::TYPE_VOID),
        text: f.call("asmspy_scope_text", [VOIDP], VOIDP),
        path: f.call("asmspy_scope_path", [VOIDP], VOIDP),
        tier: f.call("asmspy_scope_tier", [VOIDP], VOIDP),
        reason: f.call("asmspy_scope_reason", [VOIDP], VOIDP),
        name: f.call("asmspy_scope_name", [VOIDP], VOIDP),
        insn_count: f.call("asmspy_scope_insn_count", [VOIDP], -Fiddle::TYPE_INT64_T),
        truncated: f.call("asmspy_scope_truncated", [VOIDP], Fiddle::TYPE_INT),
        gaps: f.call("asmspy_scope_gaps", [VOIDP], -Fiddle::TYPE_INT64_T),
      }
    end
  end
  _load

  # [address, length] for what `scope` accepts as code.
  def self.code_range(code)
    case code
    when nil then [0, 0]
    when Array then [Integer(code[0]), Integer(code[1])]
    when Integer then [code, 0]
    when Fiddle::Function then [code.to_i, 0]
    else
      return [code.to_i, 0] if code.respond_to?(:to_i)
      raise ArgumentError, "asmspy: code must be nil, an address, [addr, len] or a Fiddle::Function"
    end
  end

  # One scope. Begun by HwTrace#start (or #scope); #finish ends it, reads
  # every result and frees the native handle. The readers are valid after
  # #finish. #value is the block's value (HwTrace#scope).
  class Scope
    attr_reader :name, :text, :path, :tier, :reason, :insn_count, :gaps, :value

    def initialize(name, addr, len, flags)
      @name = name
      @ptr = nil
      @finished = false
      if Asmspy.loaded?
        @ptr = Asmspy._fn(:begin).call(name, addr, len, flags)
        @ptr = nil if @ptr.null?
      end
      # the program always continues: a scope that could not even begin is
      # a recorded no-op with the reason
      _none(Asmspy.load_error || "asmspy_scope_begin returned NULL (out of memory)") unless @ptr
    end

    def truncated?
      @truncated
    end
    alias truncated truncated?

    def finished?
      @finished
    end

    # End the scope (renders; prints unless QUIET) and read the results.
    # Idempotent. Call it on the thread that began the scope: on another
    # thread the result is truncated with the "thread hop" reason.
    def finish
      return self if @finished
      @finished = true
      p = @ptr
      return self unless p
      @ptr = nil
      fn = ->(n) { Asmspy._fn(n).call(p) }
      fn.call(:end)
      @text = _str(fn.call(:text))
      @path = _str(fn.call(:path))
      @tier = _str(fn.call(:tier))
      @reason = _str(fn.call(:reason))
      @insn_count = fn.call(:insn_count)
      @truncated = fn.call(:truncated) != 0
      @gaps = fn.call(:gaps)
      fn.call(:free)
      self
    end
    alias close finish

    def _set_value(v) # :nodoc:
      @value = v
    end

    def to_s
      "#<Asmspy::Scope #{@name}: #{@insn_count} insns, tier #{@tier}#{@truncated ? ' TRUNCATED' : ''}>"
    end
    alias inspect to_s

    private

    def _none(reason)
      @text = "# scope #{@name}: 0 instructions, tier NONE\n# not captured: #{reason}\n"
      @path = ""
      @tier = "NONE"
      @reason = reason
      @insn_count = 0
      @truncated = false
      @gaps = 0
      @finished = true
    end

    def _str(ptr)
      ptr.null? ? "" : ptr.to_s.force_encoding(Encoding::UTF_8).scrub
    end
  end

  # A tracer: a backend choice and default flags. HwTrace.new is cheap;
  # libasmspy arms lazily on the first scope.
  class HwTrace
    attr_reader :backend, :flags

    def initialize(backend = HwBackend::Auto, quiet: false, flags: 0)
      @backend = backend
      @flags = flags | backend | (quiet ? QUIET : 0)
    end

    # tr.scope(code) { ... } -> Scope (results read, handle freed). The
    # block runs inside the scope; `ensure` ends it even when the block
    # raises (the exception then propagates unchanged). Auto-named after the
    # caller's file:line unless name: is given.
    def scope(code = nil, flags: 0, name: nil, &blk)
      raise ArgumentError, "asmspy: HwTrace#scope needs a block" unless blk
      name ||= Asmspy.caller_name(caller_locations(1, 1).first)
      s = _begin(code, flags, name)
      begin
        s._set_value(blk.call)
      ensure
        s.finish
      end
      s
    end

    # The non-block form: s = tr.start(code) ... s.finish. For ending a
    # scope somewhere else than it began (the thread-hop backstop shows it);
    # prefer #scope, which cannot forget to finish.
    def start(code = nil, flags: 0, name: nil)
      name ||= Asmspy.caller_name(caller_locations(1, 1).first)
      _begin(code, flags, name)
    end

    private

    def _begin(code, flags, name)
      addr, len = Asmspy.code_range(code)
      Scope.new(name, addr, len, @flags | flags)
    end
  end

  def self.caller_name(loc)
    loc ? "#{loc.path}:#{loc.lineno}" : "ruby:?"
  end
end
