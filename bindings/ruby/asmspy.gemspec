# gem build asmspy.gemspec && gem install ./asmspy-0.1.0.gem   (no dependencies:
# Fiddle is in Ruby's standard library, so nothing is fetched)
Gem::Specification.new do |s|
  s.name = "asmspy"
  s.version = "0.1.0"
  s.summary = "asmspy scoped tracing for Ruby (Fiddle over libasmspy)"
  s.description = "tr.scope(code) { ... } brackets native code and returns the assembly " \
                  "that ran inside it; see docs/scope/ruby.md in the asmspy sources."
  s.authors = ["asmspy"]
  s.license = "MIT"
  s.files = ["lib/asmspy.rb"]
  s.require_paths = ["lib"]
  s.required_ruby_version = ">= 2.7"
end
