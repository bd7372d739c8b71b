// The configuration picker: with scripts on, show only the chosen configuration's figures;
// without them the picker stays hidden and every configuration stays visible.
document.querySelectorAll("select.picker").forEach(function (picker) {
  var group = document.getElementById(picker.getAttribute("data-group"));
  var blocks = group.querySelectorAll(".configuration");
  function show() {
    blocks.forEach(function (block) { block.hidden = block.id !== picker.value; });
  }
  picker.addEventListener("change", show);
  picker.closest(".picker-row").hidden = false;
  show();
});
